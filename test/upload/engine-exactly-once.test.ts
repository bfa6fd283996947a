// The engine's exactly-once and scheduling rules, against a real embedded server on 127.0.0.1:
// a complete whose answer is lost is completed again by the re-run with the same key (never
// presigned anew); a key the server no longer knows is sent afresh; a 401 stops the run at once;
// files between their presign and their complete stay within the window.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../src/api/errors.js';
import type { CompleteRequest, PresignRequest } from '../../src/api/schemas.js';
import { WINDOW_PER_TRANSFER } from '../../src/upload/send/engine.js';
import type { UploadEvent } from '../../src/upload/send/events.js';
import type { Library } from '../support/library.js';
import { copyFixtures, ofType, plan, startLibrary } from '../support/library.js';

let lib: Library | undefined;
afterEach(async () => {
  await lib?.dispose();
  lib = undefined;
});

const IMAGES = ['image/photo.jpg', 'image/photo.png', 'image/photo.webp'];

/**
 * `folders` folders of 3 images and `videos` copies of the 5 s clip, under the library's temp dir.
 * Each folder's images are bytes of their own (the folder's name after the image's end): with the
 * same bytes in two folders, the library's content check may find a lost carousel's images in the
 * other one and skip them, which is right, but not what these tests are about (a CI run met it).
 */
async function input(l: Library, folders: number, videos: number): Promise<string> {
  const root = join(l.dir, 'in');
  for (let f = 0; f < folders; f++)
    for (const file of await copyFixtures(IMAGES, join(root, `album-${f}`))) await appendFile(file, `album-${f}`);
  for (let v = 0; v < videos; v++) await copyFixtures(['video/clip-5s.mp4'], join(root, `v${v}`));
  return root;
}

const lost = (url: string) =>
  new NetworkError({ message: `POST ${url} failed: connection reset`, code: 'ECONNRESET', method: 'POST', url });

describe('exactly once', () => {
  it('a complete whose answer was lost is completed again with the same key by the re-run', async () => {
    lib = await startLibrary();
    const l = lib;
    const p = await plan([await input(l, 2, 2)]);
    const presigned: string[] = [];
    const counting = {
      ...l.client,
      presign: async (body: PresignRequest, o?: Parameters<typeof l.client.presign>[1]) => {
        const res = await l.client.presign(body, o);
        presigned.push(res.key);
        return res;
      },
    };
    // Run 1: every other complete is carried out by the server, but its answer never arrives.
    let n = 0;
    const losing = {
      ...counting,
      complete: async (body: CompleteRequest) => {
        const res = await l.client.complete(body);
        if (n++ % 2 === 1) throw lost(`${l.url}/api/v1/upload/complete`);
        return res;
      },
    };
    const first = await l.upload(p, { api: losing });
    const failed = ofType(first.events, 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) expect(f).toMatchObject({ step: 'complete', code: 'ECONNRESET' });
    expect(failed[0]!.message).toMatch(/^complete failed: .*connection reset/);
    const afterFirst = presigned.length;

    const second = await l.upload(p, { api: counting });
    expect([...second.summary.items].every((o) => o.status === 'created' || o.status === 'skipped')).toBe(true);
    const items = await l.items();
    expect(items.filter((i) => i.type === 'shortform')).toHaveLength(2);
    const carousels = items.filter((i) => i.type === 'carousel');
    expect(carousels).toHaveLength(2);
    for (const c of carousels) expect(c.files).toEqual(['photo.jpg', 'photo.png', 'photo.webp']);
    // Only files that run 1 never got to (behind a lost answer in their carousel, or deleted with
    // a carousel of one image) are presigned again; the lost answers' keys are reused.
    const reused = ofType(second.events, 'completed').length - (presigned.length - afterFirst);
    expect(reused).toBeGreaterThanOrEqual(failed.length - 1);
  });

  it('a key the server no longer knows (never stored) is forgotten and the file sent afresh', async () => {
    lib = await startLibrary();
    const l = lib;
    const p = await plan(['video/clip-5s.mp4']);
    const journal = await l.journal();
    // An earlier run presigned it and died before the PUT: the journal has a key the server never stored.
    const res = await l.client.presign({
      fileName: 'clip-5s.mp4',
      contentType: 'video/mp4',
      fileSize: p.items[0]!.files[0]!.size,
      type: 'shortform',
    });
    journal.recordPresigned(p.items[0]!.files[0]!, { key: res.key, type: 'shortform' });
    const { summary, events } = await l.upload(p);
    expect(summary.items.at(0)).toMatchObject({ status: 'created' });
    expect(ofType(events, 'started')).toHaveLength(1);
    expect(await l.items()).toHaveLength(1);
    expect(journal.lookup(p.items[0]!.files[0]!)).toMatchObject({ state: 'completed' });
    expect(journal.lookup(p.items[0]!.files[0]!)?.key).not.toBe(res.key);
  });

  it('a rejected key stops the run at once: nothing starts after the 401', async () => {
    lib = await startLibrary();
    const l = lib;
    const p = await plan([await input(l, 0, 6)]);
    let presigns = 0;
    const revoked = {
      ...l.client,
      presign: async (body: PresignRequest, o?: Parameters<typeof l.client.presign>[1]) => {
        if (++presigns > 2)
          throw new ApiError({
            status: 401,
            code: 'unauthorized',
            message: 'the API key is not valid',
            method: 'POST',
            url: l.url,
          });
        return l.client.presign(body, o);
      },
    };
    const { summary, events } = await l.upload(p, { api: revoked, concurrency: 1 });
    expect(summary.keyRejected).toBe(true);
    const at = events.findIndex((e) => e.type === 'failed' && e.code === 'unauthorized');
    expect(events[at]).toMatchObject({ step: 'presign' });
    expect(events.slice(at).filter((e) => e.type === 'started')).toHaveLength(0);
    expect(presigns).toBe(3);
    expect([...summary.items].filter((o) => o.status === 'created')).toHaveLength(2);
    expect([...summary.items].filter((o) => o.keyRejected)).toHaveLength(4);
  });

  it('retries of presign and complete are events naming their step', async () => {
    lib = await startLibrary();
    const l = lib;
    const p = await plan(['video/clip-5s.mp4']);
    const flaky = {
      ...l.client,
      presign: (body: PresignRequest, o?: Parameters<typeof l.client.presign>[1]) => {
        o?.onRetry?.({ attempt: 1, delayMs: 0, error: lost(`${l.url}/api/v1/upload/presign`) });
        return l.client.presign(body, o);
      },
      complete: (body: CompleteRequest, o?: Parameters<typeof l.client.complete>[1]) => {
        o?.onRetry?.({ attempt: 1, delayMs: 0, error: lost(`${l.url}/api/v1/upload/complete`) });
        return l.client.complete(body, o);
      },
    };
    const { events } = await l.upload(p, { api: flaky });
    expect(ofType(events, 'retrying').map((e) => e.step)).toEqual(['presign', 'complete']);
  });
});

describe('scheduling', () => {
  it('never has more files between presign and complete than the window', async () => {
    lib = await startLibrary();
    const p = await plan([await input(lib, 6, 4)]);
    let open = 0;
    let peak = 0;
    const track = (e: UploadEvent) => {
      if (e.type === 'started' && e.file.role === 'file') peak = Math.max(peak, ++open);
      if ((e.type === 'completed' || e.type === 'failed') && e.file) open--;
    };
    const { summary } = await lib.upload(p, { concurrency: 1 }, track);
    expect([...summary.items].every((o) => o.status === 'created')).toBe(true);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(WINDOW_PER_TRANSFER * 1);
    const carousels = (await lib.items()).filter((i) => i.type === 'carousel');
    for (const c of carousels) expect(c.files).toEqual(['photo.jpg', 'photo.png', 'photo.webp']);
  });
});
