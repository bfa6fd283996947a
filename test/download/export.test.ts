// contentlib export, in-process (runExport, runVerify) against a real server on 127.0.0.1: the
// folder's layout and what upload plans from it, re-runs that fetch only what changed and take
// out what is gone, a run stopped by Ctrl-C resumed, files the export did not write left alone,
// and --verify's four answers.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import type { DownloadEvent } from '../../src/download/events.js';
import { LOG_NAME, readExportState } from '../../src/download/export-log.js';
import { type ExportOptions, runExport } from '../../src/download/export.js';
import { type VerifyEntry, runVerify } from '../../src/download/verify.js';
import { describeError } from '../../src/cli/error-messages.js';
import { EXIT } from '../../src/cli/errors.js';
import { buildPlan } from '../../src/upload/plan/plan.js';
import {
  type TestServer,
  call,
  jpeg,
  mp4,
  png,
  serverWithKey,
  setThumbnail,
  uploadItem,
  webp,
} from '../support/server.js';

let s: TestServer;
let key: string;
let client: ApiClient;
let root: string;
const ids: Record<string, string> = {};
const bytesOf: Record<string, Buffer> = {};

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function patch(id: string, json: Record<string, unknown>) {
  const r = await call('PATCH', `${s.url}/api/v1/content/${id}`, { key, json });
  if (r.status !== 200) throw new Error(r.text);
}

beforeAll(async () => {
  ({ s, key } = await serverWithKey({ clock: 'real' }));
  client = createApiClient({ baseUrl: s.url, apiKey: key, retry: NO_WAIT_RETRY });
  root = await mkdtemp(join(tmpdir(), 'contentlib-export-'));
  bytesOf.clip = mp4(10, { size: 300_000 });
  ids.clip = (
    await uploadItem(s, key, { fileName: 'clip.mp4', contentType: 'video/mp4', bytes: bytesOf.clip })
  ).item.id;
  await patch(ids.clip, {
    title: 'Launch clip',
    description: 'The launch, in ten seconds',
    hashtags: ['launch', 'Summer'],
    status: 'scheduled',
    platformSettings: { youtube: { visibility: 'private', category: 22 } },
  });
  await setThumbnail(s, key, ids.clip, { fileName: 'cover.png', contentType: 'image/png', bytes: png(500) });
  const images = [
    { fileName: 'z.jpg', contentType: 'image/jpeg', bytes: jpeg(3000) },
    { fileName: 'a.png', contentType: 'image/png', bytes: png(2000) },
    { fileName: 'm.webp', contentType: 'image/webp', bytes: webp(1000) },
  ];
  ids.carousel = (await uploadItem(s, key, images[0]!, { type: 'carousel' })).item.id;
  for (const img of images.slice(1)) await uploadItem(s, key, img, { type: 'carousel', contentItemId: ids.carousel });
  images.forEach((img, i) => (bytesOf[`img${i}`] = img.bytes));
  await patch(ids.carousel, { title: 'Stills', status: 'published' });
  await setThumbnail(s, key, ids.carousel, { fileName: 'first.jpg', contentType: 'image/jpeg', bytes: jpeg(700) });
  bytesOf.talk = mp4(10, { size: 200_000 });
  ids.talk = (
    await uploadItem(
      s,
      key,
      { fileName: 'talk.mp4', contentType: 'video/mp4', bytes: bytesOf.talk },
      { type: 'longform' },
    )
  ).item.id;
}, 60_000);

afterAll(async () => {
  await client?.close();
  await s?.dispose();
  if (root) await rm(root, { recursive: true, force: true });
});

function exportInto(
  dir: string,
  o: Partial<ExportOptions> = {},
  onEvent?: (e: DownloadEvent, stop: () => void) => void,
) {
  const events: DownloadEvent[] = [];
  const controller = new AbortController();
  const summary = runExport(
    { dir, filters: {}, concurrency: 4, from: s.url, ...o },
    {
      api: client,
      emit: (e) => {
        events.push(e);
        onEvent?.(e, () => controller.abort(new Error('SIGINT')));
      },
      now: () => new Date(),
      sleep: async () => {},
      policy: NO_WAIT_RETRY,
      signal: controller.signal,
    },
  );
  return { summary, events };
}

const of = <T extends DownloadEvent['type']>(events: DownloadEvent[], type: T) =>
  events.filter((e): e is Extract<DownloadEvent, { type: T }> => e.type === type);

async function verify(dir: string) {
  const entries: VerifyEntry[] = [];
  const summary = await runVerify(dir, undefined, {
    api: client,
    emit: (e) => entries.push(e),
    signal: new AbortController().signal,
    concurrency: 4,
  });
  return { summary, differences: entries.filter((e) => e.status !== 'same') };
}

/** Every file under dir, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  return (
    (await readdir(dir, { recursive: true, withFileTypes: true })) as Array<{
      name: string;
      parentPath: string;
      isFile(): boolean;
    }>
  )
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('contentlib export', () => {
  const dir = () => join(root, 'backup');

  it('writes each item in a folder of its own, the manifest upload reads, and the log with sizes and checksums', async () => {
    const { summary, events } = exportInto(dir());
    const s1 = await summary;
    expect(s1).toMatchObject({ items: 3, new: 3, changed: 0, unchanged: 0, failed: 0, removed: 0, left: [] });
    expect(of(events, 'exported').map((e) => e.change)).toEqual(['new', 'new', 'new']);
    expect(await tree(dir())).toEqual(
      [
        'contentlib.json',
        LOG_NAME,
        `${ids.clip}/clip.mp4`,
        `${ids.clip}/clip.mp4.json`,
        `${ids.clip}/thumbnail.png`,
        `${ids.carousel}/01-z.jpg`,
        `${ids.carousel}/02-a.png`,
        `${ids.carousel}/03-m.webp`,
        `${ids.carousel}/carousel.json`,
        `${ids.carousel}/thumbnail.jpg`,
        `${ids.talk}/talk.mp4`,
        `${ids.talk}/talk.mp4.json`,
      ].sort(),
    );
    expect((await readFile(join(dir(), ids.carousel!, '02-a.png'))).equals(bytesOf.img1!)).toBe(true);
    expect(JSON.parse(await readFile(join(dir(), ids.clip!, 'clip.mp4.json'), 'utf8'))).toEqual({
      title: 'Launch clip',
      description: 'The launch, in ten seconds',
      hashtags: ['launch', 'Summer'],
      status: 'scheduled',
      platformSettings: { youtube: { visibility: 'private', category: 22 } },
    });
    // Oldest first: uploading it creates the items in their original order.
    const manifest = JSON.parse(await readFile(join(dir(), 'contentlib.json'), 'utf8'));
    expect(manifest.items.map((i: { original: { id: string } }) => i.original.id)).toEqual([
      ids.clip,
      ids.carousel,
      ids.talk,
    ]);
    expect(manifest.items[1]).toMatchObject({
      type: 'carousel',
      files: [
        { path: `${ids.carousel}/01-z.jpg`, fileName: 'z.jpg' },
        { path: `${ids.carousel}/02-a.png`, fileName: 'a.png' },
        { path: `${ids.carousel}/03-m.webp`, fileName: 'm.webp' },
      ],
      thumbnail: `${ids.carousel}/thumbnail.jpg`,
    });
    expect(manifest.items[2]).toMatchObject({ type: 'longform', files: [`${ids.talk}/talk.mp4`] });
    const state = await readExportState(dir());
    const clip = (await state.record(ids.clip!))!;
    await state.close();
    expect(clip.files[0]).toMatchObject({ size: bytesOf.clip!.length, sha256: sha(bytesOf.clip!) });
    // The library's media facts of each file, in the log (issue 39).
    expect(clip.files[0]!.media).toMatchObject({ kind: 'video', durationSeconds: 10 });
    // No signed URL is ever written.
    for (const f of await tree(dir()))
      expect(await readFile(join(dir(), f), 'utf8')).not.toMatch(/signature=|X-Amz-Signature/);
  });

  it('upload plans the folder back: same types, order, names, metadata and thumbnails', async () => {
    const plan = await buildPlan([dir()], {}, { cwd: root });
    expect(plan.problems).toEqual([]);
    expect(plan.skipped).toEqual([]);
    expect(plan.items.map((i) => [i.type, i.files.map((f) => f.name), i.thumbnail?.name])).toEqual([
      ['shortform', ['clip.mp4'], 'thumbnail.png'],
      ['carousel', ['z.jpg', 'a.png', 'm.webp'], 'thumbnail.jpg'],
      ['longform', ['talk.mp4'], undefined],
    ]);
    expect(plan.items[1]!.metadata).toEqual({
      title: 'Stills',
      description: '',
      hashtags: [],
      status: 'published',
      platformSettings: {},
    });
    expect(plan.items[0]!.metadata.platformSettings).toEqual({ youtube: { visibility: 'private', category: 22 } });
  });

  it('a re-run with nothing new fetches nothing and logs only its run', async () => {
    const before = (await readFile(join(dir(), LOG_NAME), 'utf8')).split('\n').length;
    const { summary, events } = exportInto(dir());
    expect(await summary).toMatchObject({ items: 3, new: 0, changed: 0, unchanged: 3, bytes: 0 });
    expect(of(events, 'downloaded')).toEqual([]);
    expect((await readFile(join(dir(), LOG_NAME), 'utf8')).split('\n').length).toBe(before + 1);
    expect((await verify(dir())).differences).toEqual([]);
  });

  it('fetches only what changed: metadata, a replaced thumbnail, an appended image, a file lost locally', async () => {
    await patch(ids.clip!, { title: 'Launch clip (final)' });
    await setThumbnail(s, key, ids.carousel!, { fileName: 'new-cover.png', contentType: 'image/png', bytes: png(900) });
    const extra = webp(1500);
    await uploadItem(
      s,
      key,
      { fileName: 'late.webp', contentType: 'image/webp', bytes: extra },
      { type: 'carousel', contentItemId: ids.carousel },
    );
    await unlink(join(dir(), ids.talk!, 'talk.mp4'));

    const { summary, events } = exportInto(dir());
    expect(await summary).toMatchObject({ items: 3, new: 0, changed: 3, unchanged: 0 });
    expect(
      of(events, 'downloaded')
        .map((e) => e.file.shown)
        .sort(),
    ).toEqual([`${ids.carousel}/04-late.webp`, `${ids.carousel}/thumbnail.png`, `${ids.talk}/talk.mp4`].sort());
    expect(JSON.parse(await readFile(join(dir(), ids.clip!, 'clip.mp4.json'), 'utf8')).title).toBe(
      'Launch clip (final)',
    );
    const files = await readdir(join(dir(), ids.carousel!));
    expect(files.sort()).toEqual([
      '01-z.jpg',
      '02-a.png',
      '03-m.webp',
      '04-late.webp',
      'carousel.json',
      'thumbnail.png',
    ]);
    expect((await readFile(join(dir(), ids.talk!, 'talk.mp4'))).equals(bytesOf.talk!)).toBe(true);
    expect((await verify(dir())).differences).toEqual([]);
  });

  it('takes out an item deleted from the library, and leaves what it did not write', async () => {
    await writeFile(join(dir(), 'notes.txt'), 'mine');
    await writeFile(join(dir(), ids.talk!, 'my-edit.txt'), 'mine too');
    await call('DELETE', `${s.url}/api/v1/content/${ids.talk}`, { key });
    const { summary, events } = exportInto(dir());
    const s3 = await summary;
    expect(s3).toMatchObject({ items: 2, removed: 1, unchanged: 2 });
    expect(s3.left).toEqual([`${ids.talk}/my-edit.txt`, 'notes.txt']);
    expect(of(events, 'removed')).toEqual([
      {
        type: 'removed',
        itemId: ids.talk,
        folder: ids.talk,
        reason: 'deleted from the library',
        files: 2,
        left: [`${ids.talk}/my-edit.txt`],
      },
    ]);
    expect(await readdir(join(dir(), ids.talk!))).toEqual(['my-edit.txt']);
    expect(await readFile(join(dir(), 'notes.txt'), 'utf8')).toBe('mine');
    const manifest = JSON.parse(await readFile(join(dir(), 'contentlib.json'), 'utf8'));
    expect(manifest.items.map((i: { original: { id: string } }) => i.original.id)).toEqual([ids.clip, ids.carousel]);
    expect((await readExportState(dir())).items.has(ids.talk!)).toBe(false);
  });

  it('--verify names each difference: missing here, missing there, different', async () => {
    const d = join(root, 'verify');
    await (
      await exportInto(d)
    ).summary;
    expect((await verify(d)).differences).toEqual([]);
    // A damaged copy (same size), a lost file, an edited sidecar, an item only in the library, one only here.
    const img = join(d, ids.carousel!, '01-z.jpg');
    const bytes = await readFile(img);
    bytes.writeUInt8(bytes.readUInt8(100) ^ 1, 100);
    await writeFile(img, bytes);
    await unlink(join(d, ids.carousel!, '03-m.webp'));
    const sidecar = join(d, ids.carousel!, 'carousel.json');
    await writeFile(sidecar, JSON.stringify({ ...JSON.parse(await readFile(sidecar, 'utf8')), title: 'Renamed here' }));
    const added = (await uploadItem(s, key, { fileName: 'new.mp4', contentType: 'video/mp4', bytes: mp4(5) })).item.id;
    await call('DELETE', `${s.url}/api/v1/content/${ids.clip}`, { key });
    const { summary, differences } = await verify(d);
    const byPath = Object.fromEntries(differences.map((e) => [e.path, [e.status, e.reason]]));
    expect(byPath).toEqual({
      [`${ids.carousel}/01-z.jpg`]: ['different', 'its SHA-256 differs from the library’s'],
      [`${ids.carousel}/03-m.webp`]: ['missing-here', 'in the library, not in the folder'],
      [`${ids.carousel}/carousel.json`]: ['different', 'metadata differs: title'],
      [`${added}/`]: ['missing-here', 'shortform "new" is in the library, not in the folder'],
      [`${ids.clip}/clip.mp4`]: ['missing-there', 'its item is not in the library'],
      [`${ids.clip}/thumbnail.png`]: ['missing-there', 'its item is not in the library'],
      [`${ids.clip}/clip.mp4.json`]: ['missing-there', 'its item is not in the library'],
    });
    expect(summary).toMatchObject({ missingHere: 2, missingThere: 3, different: 2 });
    await call('DELETE', `${s.url}/api/v1/content/${added}`, { key });
    ids.clip = '';
  });

  it('an export stopped mid-file is resumed by the next run, the partial file continued', async () => {
    const d = join(root, 'interrupted');
    const big = mp4(10, { size: 4 * 1024 * 1024 });
    const id = (await uploadItem(s, key, { fileName: 'big.mp4', contentType: 'video/mp4', bytes: big })).item.id;
    const first = exportInto(d, { filters: { search: 'big' } }, (e, stop) => e.type === 'progress' && stop());
    const s1 = await first.summary;
    expect(s1.interrupted).toBe(true);
    expect((await readdir(join(d, id))).filter((n) => n.endsWith('.part'))).toHaveLength(1);
    // Nothing logged for an item that is not complete, and no manifest from an unfinished run.
    expect((await readExportState(d)).items.size).toBe(0);
    await expect(readFile(join(d, 'contentlib.json'))).rejects.toThrow();

    const again = exportInto(d, { filters: { search: 'big' } });
    expect(await again.summary).toMatchObject({ items: 1, new: 1, interrupted: false });
    const done = of(again.events, 'downloaded')[0]!;
    expect(done.resumedFrom).toBeGreaterThan(0);
    expect((await readFile(join(d, id, 'big.mp4'))).equals(big)).toBe(true);
    expect(await readdir(join(d, id))).toEqual(['big.mp4', 'big.mp4.json']);
  });

  it('a rejected key stops the run (exit 4), and nothing is written for it', async () => {
    const d = join(root, 'refused');
    const refused = createApiClient({
      baseUrl: s.url,
      apiKey: 'cl_not_a_key_of_this_server_at_all',
      retry: NO_WAIT_RETRY,
    });
    const err = await runExport(
      { dir: d, filters: {}, concurrency: 2, from: s.url },
      {
        api: refused,
        emit: () => {},
        now: () => new Date(),
        sleep: async () => {},
        policy: NO_WAIT_RETRY,
        signal: new AbortController().signal,
      },
    ).catch((e: unknown) => e);
    expect(describeError(err).exitCode).toBe(EXIT.auth);
    expect(await tree(d)).toEqual([LOG_NAME]);
    expect(await readFile(join(d, LOG_NAME), 'utf8')).toBe('');
    await refused.close();
  });

  it('filters: only what they select; an item that stops matching is taken out', async () => {
    const d = join(root, 'stills');
    const r1 = await exportInto(d, { filters: { type: 'carousel' } }).summary;
    expect(r1).toMatchObject({ items: 1, new: 1 });
    await patch(ids.carousel!, { title: 'Stills (archived)' });
    const r2 = await exportInto(d, { filters: { type: 'carousel', search: 'stills (archived)' } }).summary;
    expect(r2).toMatchObject({ items: 1, changed: 1 });
    const r3 = await exportInto(d, { filters: { type: 'carousel', search: 'nothing like it' } }).summary;
    expect(r3).toMatchObject({ items: 0, removed: 1 });
    expect(await tree(d)).toEqual(['contentlib.json', LOG_NAME]);
  });
});
