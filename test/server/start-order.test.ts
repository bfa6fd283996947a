// A `serve` that cannot listen (its port taken, by another instance on the same data perhaps)
// must change nothing (issue 36): it used to run its start-up sweep first, and freed what that
// sweep judges abandoned. Here the sweep's easiest mark: a staging object no open upload owns.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'contentlib-start-order-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('serve listens before it sweeps', () => {
  it('a start that cannot listen leaves the data as it was; one that listens sweeps', async () => {
    const first = await startServer({ dataDir: join(root, 'first') });
    const port = Number(new URL(first.url).port);
    const dataDir = join(root, 'shared');
    try {
      // A staging object that no upload owns: the first sweep of a server on dataDir removes it.
      const stray = async () => {
        const path = join(dataDir, 'staging', randomUUID());
        await writeFile(path, 'bytes of no upload');
        return path;
      };
      const warm = await startServer({ dataDir });
      await warm.close();
      const kept = await stray();
      await expect(startServer({ dataDir, port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(await exists(kept)).toBe(true);
      // The same start on a free port sweeps it: the test can tell the two apart.
      const started = await startServer({ dataDir });
      await started.sweep();
      await started.close();
      expect(await exists(kept)).toBe(false);
    } finally {
      await first.close();
    }
  });
});
