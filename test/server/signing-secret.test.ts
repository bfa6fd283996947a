// The embedded library's signing secret is made by whichever process starts first on a new data
// folder. Two uploads and an `ls` started at once on a fresh one (test/cli/newcomer.test.ts) must
// all read the same, whole secret: never a file created but not yet written.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadSecret } from '../../src/server/signing.js';

// writeFile as the system does it, made slow: the file exists, empty, before its bytes are
// written. Another process may look at it in between; here, another call does.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const writeFile = async (path: string, data: string, opts?: { flag?: string; mode?: number }) => {
    const handle = await fs.open(path, opts?.flag ?? 'w', opts?.mode);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  };
  return { ...fs, default: { ...fs, writeFile }, writeFile };
});

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('loadSecret', () => {
  it.each(Array.from({ length: 20 }, (_, round) => [round]))(
    'round %d: 16 loads at once on a new folder all get the same secret',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'contentlib-secret-'));
      dirs.push(dir);
      const secrets = await Promise.all(Array.from({ length: 16 }, () => loadSecret(dir)));
      expect(new Set(secrets.map((s) => s.toString('hex'))).size).toBe(1);
      expect(secrets[0]).toHaveLength(32);
      // Nothing left behind but the secret itself.
      expect(await readdir(dir)).toEqual(['secret']);
    },
  );
});
