// Readiness of the disk store: the data folder, where this server receives PUT bodies, must
// take a write, and its objects folder must be there (src/server/open-storage.ts asks it).
import { randomUUID } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Check } from '../ops/health.js';

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}

/** The data folder takes a write: a small file is created and removed where PUTs write first. */
export function diskCheck(dataDir: string): Check {
  return async () => {
    const probe = join(dataDir, 'tmp', `.readyz-${randomUUID()}`);
    try {
      await writeFile(probe, 'ready', { flag: 'wx', mode: 0o600 });
    } catch (err) {
      throw new Error(`the data folder cannot be written (${codeOf(err)})`, { cause: err });
    } finally {
      await rm(probe, { force: true }).catch(() => undefined);
    }
    const objects = await stat(join(dataDir, 'objects')).catch(() => null);
    if (!objects?.isDirectory()) throw new Error('the objects folder is missing');
  };
}
