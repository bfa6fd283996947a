// A really full disk: the data dir on a 2 MiB tmpfs, filled up. Every request is answered (507
// insufficient_storage where something had to be written, never a 500), DELETE still works
// (it is how space is freed), and once space is back everything works again. Mounting needs
// root and a container that allows it; elsewhere the case is skipped and says why (the
// injected write error of integrity.test.ts covers the 507 path on every machine), except in CI,
// where it fails instead (test/support/needs.ts).
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout } from '../support/needs.js';
import { type TestServer, call, image, presign, put, startTestServer, uploadItem } from '../support/server.js';

let mountPoint = '';
let skipReason = '';

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'contentlib-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (err) {
    skipReason = `cannot mount a tmpfs here (${String((err as { stderr?: Buffer }).stderr ?? err).trim()}); run as root in a container that allows mount`;
  }
});

afterAll(async () => {
  if (!skipReason) execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  await rm(mountPoint, { recursive: true, force: true });
});

/** Writes zeros to `path` until the disk refuses; returns how many bytes fitted. */
async function fill(path: string): Promise<number> {
  const handle = await open(path, 'w');
  let written = 0;
  try {
    for (;;) {
      try {
        written += (await handle.write(Buffer.alloc(16 * 1024))).bytesWritten;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return written;
        throw err;
      }
    }
  } finally {
    await handle.close();
  }
}

describe('a full disk (tmpfs)', () => {
  it('answers every request, 507 where it must write, DELETE works, and recovers', async (ctx) => {
    if (skipWithout('a tmpfs mount', !skipReason, skipReason)) {
      ctx.skip(skipReason);
      return;
    }
    let s: TestServer | undefined;
    try {
      s = await startTestServer({ dataDir: join(mountPoint, 'data'), clock: 'real' });
      const key = await s.key();
      const items = [];
      for (let i = 0; i < 3; i++) items.push((await uploadItem(s, key, image(`kept-${i}.jpg`, 8 * 1024))).item);
      // The sweep at start made the reserve; now the disk fills up.
      const filler = join(mountPoint, 'filler');
      await fill(filler);

      const big = image('big.jpg', 256 * 1024);
      const p = await presign(s, key, big);
      expect([200, 507], p.text).toContain(p.status);
      if (p.status === 200) {
        const r = await put(p.body.presignedUrl, big);
        expect(r.status, r.text).toBe(507);
      }
      const patched = await call('PATCH', `${s.url}/api/v1/content/${items[0]!.id}`, {
        key,
        json: { title: 'renamed on a full disk' },
      });
      expect([200, 507], patched.text).toContain(patched.status);
      const listed = await call('GET', `${s.url}/api/v1/content`, { key });
      expect(listed.status).toBe(200);

      const deleted = await call('DELETE', `${s.url}/api/v1/content/${items[1]!.id}`, { key });
      expect(deleted.status, deleted.text).toBe(200);
      expect((await call('GET', `${s.url}/api/v1/content/${items[1]!.id}`, { key })).status).toBe(404);

      await rm(filler);
      const again = await uploadItem(s, key, image('after.jpg', 8 * 1024));
      expect(again.item.id).toBeTruthy();
    } finally {
      // dispose() also fails the test when the server reported any internal (500) error.
      await s?.dispose();
    }
  });
});
