// Content identity in the engine, against a real server on 127.0.0.1 (SQLite + disk): a byte
// changed on the way is refused and the file sent again from disk once; a fresh machine (an
// empty journal) finds what the library holds by checksum and sends nothing twice; each file is
// hashed once, in batches; a service without the extension is told apart and uploaded to as
// before. (PostgreSQL + S3: test/e2e/upload-s3-checksum.test.ts.)
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import type { EngineApi } from '../../src/upload/send/engine.js';
import { openJournal } from '../../src/upload/send/journal.js';
import { sha256OfFile } from '../../src/upload/send/hash.js';
import type { SendableFile } from '../../src/upload/send/transfer.js';
import type { Library } from '../support/library.js';
import { ofType, plan, startLibrary } from '../support/library.js';
import { FIXTURES } from '../support/paths.js';
import { startSpecOnlyProxy } from '../support/spec-only-proxy.js';

let lib: Library | undefined;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'contentlib-identity-'));
});
afterAll(async () => rm(work, { recursive: true, force: true }));
afterEach(async () => {
  await lib?.dispose();
  lib = undefined;
});

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** A journal of its own: what a fresh machine (a CI runner) starts with. */
const freshJournal = async () => openJournal(await mkdtemp(join(work, 'state-')), 'fresh-machine');

/** `folders` carousel folders of `images` JPEGs each, every image's bytes its own. */
async function carousels(name: string, folders: number, images: number): Promise<string> {
  const root = join(work, name);
  const photo = await readFile(join(FIXTURES, 'image/photo.jpg'));
  for (let f = 0; f < folders; f++) {
    const dir = join(root, `set-${f}`);
    await mkdir(dir, { recursive: true });
    // Bytes after the JPEG's end: still a JPEG, now one of its own.
    for (let i = 0; i < images; i++)
      await writeFile(join(dir, `${i + 1}.jpg`), Buffer.concat([photo, Buffer.from(`${name}/${f}/${i}`)]));
  }
  return root;
}

/** The client with its check requests counted. */
function counting(api: EngineApi): { api: EngineApi; checks: () => number } {
  let n = 0;
  return {
    api: { ...api, dispatcher: api.dispatcher, check: (body, o) => (n++, api.check(body, o)) },
    checks: () => n,
  };
}

/** A hash function that counts what it reads. */
function countingHash(): { hash: (f: SendableFile, s: AbortSignal) => Promise<string>; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    hash: (f, s) => {
      reads.push(f.path);
      return sha256OfFile(f, s);
    },
  };
}

describe('a byte changed on the way (SQLite + disk)', () => {
  it('is refused by the store, nothing is promoted, and the file is sent again from disk once', async () => {
    lib = await startLibrary({ flipPuts: { at: 200, count: 1 } });
    const { summary, events } = await lib.upload(await plan(['video/clip-5s.mp4']));
    expect(summary.items.at(0)).toMatchObject({ status: 'created', filesCompleted: 1 });
    const retries = ofType(events, 'retrying').filter((e) => /SHA-256 mismatch/.test(e.reason));
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toContain('sending it again from disk');
    const { item } = await lib.client.get(summary.items.at(0)!.itemId!);
    expect(item.sha256).toBe(await sha256(join(FIXTURES, 'video/clip-5s.mp4')));
    expect(await lib.items()).toHaveLength(1);
    // Nothing of the refused body was kept: no staging object, no stray temp file.
    expect(await readdir(join(lib.dir, 'data', 'staging'))).toEqual([]);
    expect(await readdir(join(lib.dir, 'data', 'tmp'))).toEqual([]);
  });

  it('changed again on the second try: the file fails, saying what happened; no item, nothing stored', async () => {
    lib = await startLibrary({ flipPuts: { at: 200, count: 2 } });
    const { summary, events } = await lib.upload(await plan(['video/clip-5s.mp4']));
    expect(summary.items.at(0)).toMatchObject({ status: 'failed' });
    const message = summary.items.at(0)!.message!;
    expect(message).toContain('PUT failed');
    expect(message).toContain('SHA-256 mismatch');
    expect(message).toContain('sent again from disk, they differed again');
    expect(message).toContain('400 bad_digest');
    expect(ofType(events, 'failed')).toHaveLength(1);
    expect(await lib.items()).toHaveLength(0);
    expect(await readdir(join(lib.dir, 'data', 'staging'))).toEqual([]);
  });
});

describe('a fresh machine (an empty journal)', () => {
  it('finds every item of the demo folder in the library by checksum and sends nothing', async () => {
    lib = await startLibrary();
    const p = await plan(['demo']);
    const first = await lib.upload(p);
    const ids = [...first.summary.items].map((o) => o.itemId);
    const again = await lib.upload(p, { journal: await freshJournal() });
    expect([...again.summary.items].map((o) => o.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect([...again.summary.items].map((o) => o.itemId)).toEqual(ids);
    expect([...again.summary.items].map((o) => o.filesInLibrary)).toEqual([1, 1, 3]);
    expect(again.summary.bytesSent).toBe(0);
    expect(ofType(again.events, 'started')).toHaveLength(0);
    const found = ofType(again.events, 'skipped').filter((e) => e.inLibrary);
    expect(found.map((e) => e.reason)).toEqual([
      'already in the library as shortform',
      'already in the library as shortform',
      'already in the library as carousel',
      'already in the library as carousel',
      'already in the library as carousel',
    ]);
    expect(await lib.items()).toHaveLength(3);
  });

  it('hashes each file once, in batches (one check request per batch), and not at all what the journal knows', async () => {
    lib = await startLibrary();
    const root = await carousels('batches', 4, 10);
    const p = await plan([root]);
    const first = counting(lib.client);
    const h1 = countingHash();
    await lib.upload(p, { api: first.api, hash: h1.hash });
    expect(h1.reads).toHaveLength(40);
    expect(new Set(h1.reads).size).toBe(40);
    // 16 files in the first batch, whole carousels: 2 folders, then the other 2.
    expect(first.checks()).toBe(2);

    // The same machine: the journal is the fast path.
    const same = counting(lib.client);
    const h2 = countingHash();
    const rerun = await lib.upload(p, { api: same.api, hash: h2.hash });
    expect([...rerun.summary.items].every((o) => o.status === 'skipped')).toBe(true);
    expect(h2.reads).toHaveLength(0);
    expect(same.checks()).toBe(0);

    // A fresh machine: each file hashed once more, the library asked twice, nothing sent.
    const fresh = counting(lib.client);
    const h3 = countingHash();
    const again = await lib.upload(p, { api: fresh.api, hash: h3.hash, journal: await freshJournal() });
    expect([...again.summary.items].every((o) => o.status === 'skipped')).toBe(true);
    expect(h3.reads).toHaveLength(40);
    expect(fresh.checks()).toBe(2);
    expect(again.summary.bytesSent).toBe(0);
    expect(await lib.items()).toHaveLength(4);
  });

  it('a folder that gained one photo appends exactly that photo to its carousel', async () => {
    lib = await startLibrary();
    const root = await carousels('grown', 1, 3);
    const folder = join(root, 'set-0');
    const first = await lib.upload(await plan([folder]));
    const carousel = first.summary.items.at(0)!.itemId!;
    await copyFile(join(FIXTURES, 'image/photo.png'), join(folder, '4.png'));
    const again = await lib.upload(await plan([folder]), { journal: await freshJournal() });
    expect(again.summary.items.at(0)).toMatchObject({
      status: 'created',
      itemId: carousel,
      appended: true,
      filesCompleted: 1,
      filesInLibrary: 3,
    });
    const items = await lib.items();
    expect(items).toHaveLength(1);
    expect(items[0]!.files).toEqual(['1.jpg', '2.jpg', '3.jpg', '4.png']);
  });

  it('the same video as another type is not "already there": it is uploaded', async () => {
    lib = await startLibrary();
    const asLong = await lib.upload(await plan(['video/clip-5s.mp4'], { type: 'longform' }));
    const asShort = await lib.upload(await plan(['video/clip-5s.mp4']), { journal: await freshJournal() });
    expect(asShort.summary.items.at(0)).toMatchObject({ status: 'created', type: 'shortform' });
    expect(asShort.summary.items.at(0)!.itemId).not.toBe(asLong.summary.items.at(0)!.itemId);
  });

  it('--force hashes (to declare the checksums) but does not ask the library: it uploads again', async () => {
    lib = await startLibrary();
    const p = await plan(['video/clip-5s.mp4']);
    await lib.upload(p);
    const c = counting(lib.client);
    const forced = await lib.upload(p, { api: c.api, force: true, journal: await freshJournal() });
    expect(forced.summary.items.at(0)).toMatchObject({ status: 'created' });
    expect(c.checks()).toBe(0);
    expect(await lib.items()).toHaveLength(2);
  });
});

describe('a service without the extensions', () => {
  it('no check endpoint: said once; nothing hashed after the first batch, no checksum declared; uploads as before', async () => {
    lib = await startLibrary();
    const proxy = await startSpecOnlyProxy(lib.url, { check: 'missing', sha256: 'kept' });
    const client = createApiClient({ baseUrl: proxy.url, apiKey: lib.key, retry: NO_WAIT_RETRY });
    try {
      const root = await carousels('spec-only', 3, 10);
      const h = countingHash();
      const { summary, events } = await lib.upload(await plan([root]), { api: client, hash: h.hash });
      expect([...summary.items].map((o) => o.status)).toEqual(['created', 'created', 'created']);
      const notices = ofType(events, 'notice');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.message).toContain('duplicates are detected only by this machine’s upload journal');
      expect(proxy.checks()).toBe(1);
      // The first batch (two folders) was hashed before the service said no; nothing after.
      expect(h.reads).toHaveLength(20);
      expect(proxy.presigns.some((b) => 'sha256' in b)).toBe(false);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a key that may write but not read (no content:read): the check is refused, said once; uploads as before', async () => {
    lib = await startLibrary();
    const writeOnly = await lib.makeKey({ name: 'ci', scopes: ['content:write'] });
    const client = createApiClient({ baseUrl: lib.url, apiKey: writeOnly.key, retry: NO_WAIT_RETRY });
    try {
      const { summary, events } = await lib.upload(await plan(['demo']), { api: client });
      expect([...summary.items].map((o) => o.status)).toEqual(['created', 'created', 'created']);
      const notices = ofType(events, 'notice');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.message).toContain('the key lacks content:read');
      expect(await lib.items()).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('presign refuses the field: said once, presigned again without it; every file uploaded', async () => {
    lib = await startLibrary();
    const proxy = await startSpecOnlyProxy(lib.url, { check: 'kept', sha256: 'refused' });
    const client = createApiClient({ baseUrl: proxy.url, apiKey: lib.key, retry: NO_WAIT_RETRY });
    try {
      const { summary, events } = await lib.upload(await plan(['demo']), { api: client, concurrency: 1 });
      expect([...summary.items].map((o) => o.status)).toEqual(['created', 'created', 'created']);
      expect(ofType(events, 'notice')).toHaveLength(1);
      expect(ofType(events, 'notice')[0]!.message).toContain('refuses a declared checksum');
      // One refused presign with the field, then none carries it.
      expect(proxy.presigns.filter((b) => 'sha256' in b)).toHaveLength(1);
      expect(proxy.presigns).toHaveLength(6);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
