// contentlib download, in-process (runDownload) against a real server on 127.0.0.1: a carousel
// lands as a folder in its order, a video as its file or on stdout; files already there are an
// error, kept or replaced; a transfer cut by a proxy or by Ctrl-C resumes byte for byte; a
// damaged stored copy is reported and nothing half-written is left; another brand's item is a
// clear not-found (exit 5).
import { mkdtemp, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { type DownloadOptions, downloadOutcome, runDownload } from '../../src/cli/commands/download.js';
import { describeError } from '../../src/cli/error-messages.js';
import { EXIT } from '../../src/cli/errors.js';
import type { DownloadEvent } from '../../src/download/events.js';
import { startCuttingProxy } from '../support/cutting-proxy.js';
import { type TestServer, call, jpeg, mp4, png, serverWithKey, uploadItem, webp } from '../support/server.js';

let s: TestServer;
let key: string;
let client: ApiClient;
let dir: string;
const images = [
  { fileName: 'z.jpg', contentType: 'image/jpeg', bytes: jpeg(3000) },
  { fileName: 'a.png', contentType: 'image/png', bytes: png(2000) },
  { fileName: 'm.webp', contentType: 'image/webp', bytes: webp(1000) },
];
const clip = { fileName: 'clip.mp4', contentType: 'video/mp4', bytes: mp4(10, { size: 2 * 1024 * 1024 }) };
let carouselId: string;
let videoId: string;

beforeAll(async () => {
  ({ s, key } = await serverWithKey());
  client = createApiClient({ baseUrl: s.url, apiKey: key, retry: NO_WAIT_RETRY });
  const first = await uploadItem(s, key, images[0]!, { type: 'carousel' });
  carouselId = first.item.id;
  for (const img of images.slice(1)) await uploadItem(s, key, img, { type: 'carousel', contentItemId: carouselId });
  await call('PATCH', `${s.url}/api/v1/content/${carouselId}`, { key, json: { title: 'Summer / sale' } });
  const video = await uploadItem(s, key, clip);
  videoId = video.item.id;
});
afterAll(async () => {
  await client?.close();
  await s?.dispose();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-download-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function run(
  o: Partial<DownloadOptions> & { ids: string[] },
  over: { api?: ApiClient; signal?: AbortSignal; onEvent?: (e: DownloadEvent) => void } = {},
) {
  const events: DownloadEvent[] = [];
  const stdout = new PassThrough();
  const out: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  const result = runDownload(
    { dir, concurrency: 4, ...o },
    {
      api: over.api ?? client,
      emit: (e) => {
        events.push(e);
        over.onEvent?.(e);
      },
      stdout,
      now: () => new Date(),
      sleep: async () => {},
      policy: NO_WAIT_RETRY,
      signal: over.signal ?? new AbortController().signal,
      cwd: dir,
    },
  );
  return { result, events, stdout: () => Buffer.concat(out) };
}

const of = <T extends DownloadEvent['type']>(events: DownloadEvent[], type: T) =>
  events.filter((e): e is Extract<DownloadEvent, { type: T }> => e.type === type);

describe('contentlib download', () => {
  it('a carousel: a folder named after it, its images prefixed by position, so name order is carousel order', async () => {
    const { result, events } = run({ ids: [carouselId] });
    const r = await result;
    expect(downloadOutcome(r)).toBeUndefined();
    const folder = join(dir, 'Summer _ sale');
    const names = (await readdir(folder)).sort();
    expect(names).toEqual(['01-z.jpg', '02-a.png', '03-m.webp']);
    for (const [i, name] of names.entries())
      expect((await readFile(join(folder, name))).equals(images[i]!.bytes)).toBe(true);
    expect(
      of(events, 'downloaded')
        .map((e) => e.file.shown)
        .sort(),
    ).toEqual(names.map((n) => `Summer _ sale/${n}`));
    expect(r.items[0]!.files.map((f) => f.outcome)).toEqual(['downloaded', 'downloaded', 'downloaded']);
  });

  it('a video as its file name; -O - writes it to stdout', async () => {
    await (
      await run({ ids: [videoId] })
    ).result;
    expect((await readFile(join(dir, 'clip.mp4'))).equals(clip.bytes)).toBe(true);
    const toStdout = run({ ids: [videoId], output: '-' });
    expect(downloadOutcome(await toStdout.result)).toBeUndefined();
    expect(toStdout.stdout().equals(clip.bytes)).toBe(true);
  });

  it('-O - with a carousel is a usage error naming what to do', async () => {
    const err = await run({ ids: [carouselId], output: '-' }).result.catch((e: unknown) => e);
    expect(describeError(err)).toMatchObject({ exitCode: EXIT.usage });
    expect(describeError(err).message).toMatch(/carousel of 3 images.*-o DIR/s);
  });

  it('files already there: an error before anything is fetched, unless --skip-existing or --clobber', async () => {
    await run({ ids: [carouselId, videoId] }).result;
    await writeFile(join(dir, 'Summer _ sale', '02-a.png'), 'edited locally');

    const refused = run({ ids: [carouselId, videoId] });
    const err = await refused.result.catch((e: unknown) => e);
    expect(describeError(err)).toMatchObject({ exitCode: EXIT.failure });
    expect(describeError(err).message).toMatch(/4 files already exist.*--skip-existing.*--clobber/s);
    expect(refused.events).toEqual([]);

    const skipping = run({ ids: [carouselId, videoId], skipExisting: true });
    const skipped = await skipping.result;
    expect(of(skipping.events, 'skipped')).toHaveLength(3);
    expect(of(skipping.events, 'downloaded')).toHaveLength(0);
    // Not the library's size: not silently kept.
    expect(of(skipping.events, 'failed').map((e) => e.file?.shown)).toEqual(['Summer _ sale/02-a.png']);
    expect(describeError(downloadOutcome(skipped))).toMatchObject({ exitCode: EXIT.partial });

    const clobbering = run({ ids: [carouselId], clobber: true });
    expect(downloadOutcome(await clobbering.result)).toBeUndefined();
    expect((await readFile(join(dir, 'Summer _ sale', '02-a.png'))).equals(images[1]!.bytes)).toBe(true);
  });

  it('--skip-existing and --clobber together are a usage error', async () => {
    const err = await run({ ids: [videoId], skipExisting: true, clobber: true }).result.catch((e: unknown) => e);
    expect(describeError(err).exitCode).toBe(EXIT.usage);
  });

  it("another brand's item is not found (exit 5), and nothing is written", async () => {
    const other = createApiClient({ baseUrl: s.url, apiKey: await s.key('other-brand'), retry: NO_WAIT_RETRY });
    const { result, events } = run({ ids: [videoId] }, { api: other });
    const r = await result;
    expect(r.items[0]!.error).toMatchObject({ status: 404, code: 'not_found' });
    expect(of(events, 'failed')).toHaveLength(1);
    const { message, exitCode } = describeError(downloadOutcome(r));
    expect(exitCode).toBe(EXIT.notFound);
    expect(message).toContain(`Item ${videoId} is not in this brand's library`);
    expect(await readdir(dir)).toEqual([]);
    await other.close();
  });

  it('one id found and one unknown: the found one is downloaded, exit 3', async () => {
    const r = await run({ ids: [videoId, '00000000-0000-4000-8000-000000000000'] }).result;
    expect(r.items.map((i) => i.error?.status)).toEqual([undefined, 404]);
    expect(describeError(downloadOutcome(r)).exitCode).toBe(EXIT.partial);
  });

  it('a stored copy of the wrong size is reported and no partial file is left', async () => {
    const { s: own, key: ownKey } = await serverWithKey();
    const ownClient = createApiClient({ baseUrl: own.url, apiKey: ownKey, retry: NO_WAIT_RETRY });
    try {
      const done = await uploadItem(own, ownKey, clip);
      await truncate(own.disk!.pathOf(done.storageKey), 1000);
      const { result, events } = run({ ids: [done.item.id] }, { api: ownClient });
      const r = await result;
      const failed = of(events, 'failed')[0]!;
      expect(failed.code).toBe('size_mismatch');
      expect(failed.message).toMatch(/1000 bytes arrived where the library says 2097152; the partial file was removed/);
      expect(await readdir(dir)).toEqual([]);
      expect(describeError(downloadOutcome(r)).exitCode).toBe(EXIT.failure);
    } finally {
      await ownClient.close();
      await own.dispose();
    }
  });

  it('a transfer cut by the network resumes and ends byte-identical', async () => {
    let target = '';
    const proxy = await startCuttingProxy(() => target, { cutAfter: 512 * 1024, cuts: 1 });
    const { s: behind, key: behindKey } = await serverWithKey({ publicUrl: proxy.url });
    target = behind.url;
    const api = createApiClient({ baseUrl: proxy.url, apiKey: behindKey, retry: NO_WAIT_RETRY });
    try {
      const id = (await uploadItem(behind, behindKey, clip)).item.id;
      const { result, events } = run({ ids: [id] }, { api });
      const r = await result;
      expect(downloadOutcome(r), JSON.stringify(events)).toBeUndefined();
      expect(proxy.cut()).toBe(1);
      const retry = of(events, 'retrying')[0]!;
      expect(retry.from).toBeGreaterThan(0);
      expect(of(events, 'started').map((e) => e.from)).toEqual([0, retry.from]);
      expect((await readFile(join(dir, 'clip.mp4'))).equals(clip.bytes)).toBe(true);
    } finally {
      await api.close();
      await proxy.close();
      await behind.dispose();
    }
  });

  it('interrupted mid-file, the part file stays; the next run resumes it and ends byte-identical', async () => {
    const stop = new AbortController();
    // Ctrl-C as soon as the first bytes are on disk (the first progress event).
    const first = run(
      { ids: [videoId] },
      { signal: stop.signal, onEvent: (e) => e.type === 'progress' && stop.abort(new Error('SIGINT')) },
    );
    const r = await first.result;
    expect(r.interrupted).toBe(true);
    expect(r.items[0]!.files[0]!.outcome).toBe('interrupted');
    expect(describeError(downloadOutcome(r)).exitCode).toBe(EXIT.interrupted);
    const parts = (await readdir(dir)).filter((n) => n.endsWith('.part'));
    expect(parts).toHaveLength(1);

    const again = run({ ids: [videoId] });
    expect(downloadOutcome(await again.result)).toBeUndefined();
    const started = of(again.events, 'started')[0]!;
    expect(started.from).toBeGreaterThan(0);
    expect(of(again.events, 'downloaded')[0]!.resumedFrom).toBe(started.from);
    expect((await readFile(join(dir, 'clip.mp4'))).equals(clip.bytes)).toBe(true);
    expect(await readdir(dir)).toEqual(['clip.mp4']);
  });
});
