// Posters and previews (issue 39; docs/api.md, Posters and previews): made in the background
// after complete by the real ffmpeg and sharp, kept with the item in the store, removed with it.
// On SQLite + disk and (vitest's postgres-s3 project) on PostgreSQL + RGW, where ffmpeg reads the
// video over a signed GET URL.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewKeyOf } from '../../src/server/object-keys.js';
import { findFfmpeg } from '../../src/server/previews/video.js';
import { PREVIEW_EDGE, PREVIEW_MAX_BYTES } from '../../src/server/previews/image.js';
import { skipWithout } from '../support/needs.js';
import { FIXTURES } from '../support/paths.js';
import {
  type FileSpec,
  type TestServer,
  call,
  complete,
  presign,
  put,
  serverWithKey,
  setThumbnail,
  startTestServer,
  uploadItem,
} from '../support/server.js';

interface Shown {
  id: string;
  type: string;
  posterUrl?: string | null;
  previewUrl?: string | null;
}
interface FileShown {
  id: string;
  fileKey: string;
  previewUrl?: string | null;
}

const FFMPEG = await findFfmpeg();
const noFfmpeg = skipWithout('ffmpeg', FFMPEG !== null, 'apt-get install ffmpeg');

const fadeIn: FileSpec = {
  fileName: 'fade-in.mp4',
  contentType: 'video/mp4',
  bytes: await readFile(join(FIXTURES, 'video/fade-in.mp4')),
};

/** A large photo of noise (the worst case for JPEG): a preview must still fit in its budget. */
async function noisePhoto(name: string, width: number, height: number): Promise<FileSpec> {
  const bytes = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 70 } },
  })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { fileName: name, contentType: 'image/jpeg', bytes };
}

async function getItem(s: TestServer, key: string, id: string) {
  const r = await call<{ item: Shown; files: FileShown[] }>('GET', `${s.url}/api/v1/content/${id}`, { key });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** The bytes a signed URL answers. */
async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function luminance(jpeg: Buffer): Promise<number> {
  return (await sharp(jpeg).greyscale().stats()).channels[0]!.mean;
}

/** A program standing in for ffmpeg that writes what it was asked, then does `body`. */
async function ffmpegScript(dir: string, body: string): Promise<string> {
  const path = join(dir, 'ffmpeg');
  await writeFile(path, `#!/bin/sh\necho run >> "${dir}/runs"\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

const runsOf = async (dir: string) =>
  (await readFile(join(dir, 'runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

describe.skipIf(noFfmpeg)('posters and previews', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => ({ s, key } = await serverWithKey({ previews: { ffmpeg: FFMPEG } })));
  afterAll(async () => s.dispose());

  it('gives a clip that fades in from black a poster that is a real frame, small', async () => {
    const made = await uploadItem(s, key, fadeIn, { type: 'shortform' });
    await s.previewsDone();
    const { item } = await getItem(s, key, made.item.id);
    expect(item.posterUrl).toEqual(expect.any(String));
    expect(item.previewUrl).toBeNull();
    const poster = await fetchBytes(item.posterUrl!);
    expect(poster.length).toBeLessThanOrEqual(PREVIEW_MAX_BYTES);
    const meta = await sharp(poster).metadata();
    expect(meta.format).toBe('jpeg');
    // The clip's first frame is black (mean 0); its picture (testsrc) has a mean of about 120.
    expect(await luminance(poster)).toBeGreaterThan(80);
    // Listed with it too.
    const list = await call<{ items: Shown[] }>('GET', `${s.url}/api/v1/content`, { key });
    expect(list.body.items.find((i) => i.id === made.item.id)?.posterUrl).toEqual(expect.any(String));
  });

  it('gives every carousel image a preview of at most 400 px and 60 KB; the item shows the first one', async () => {
    const big = await noisePhoto('noise.jpg', 2400, 1600);
    expect(big.bytes.length).toBeGreaterThan(1_000_000);
    const tall = await noisePhoto('tall.jpg', 600, 1200);
    const made = await uploadItem(s, key, big, { type: 'carousel' });
    await uploadItem(s, key, tall, { contentItemId: made.item.id });
    await s.previewsDone();
    const { item, files } = await getItem(s, key, made.item.id);
    expect(files).toHaveLength(2);
    for (const f of files) {
      expect(f.previewUrl).toEqual(expect.any(String));
      const preview = await fetchBytes(f.previewUrl!);
      expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX_BYTES);
      const { width, height } = await sharp(preview).metadata();
      expect(Math.max(width!, height!)).toBe(PREVIEW_EDGE);
    }
    expect(item.posterUrl).toBeNull();
    expect(new URL(item.previewUrl!).pathname).toBe(new URL(files[0]!.previewUrl!).pathname);
  });

  it("removes an item's posters and previews with it", async () => {
    const clip = await uploadItem(s, key, fadeIn, { type: 'shortform' });
    const photos = await uploadItem(s, key, await noisePhoto('a.jpg', 800, 600), { type: 'carousel' });
    await s.previewsDone();
    const files = (await getItem(s, key, photos.item.id)).files;
    const previews = [previewKeyOf(clip.storageKey), ...files.map((f) => previewKeyOf(f.fileKey))];
    for (const k of previews) expect(await s.storage.head(k), k).not.toBeNull();
    for (const id of [clip.item.id, photos.item.id])
      expect((await call('DELETE', `${s.url}/api/v1/content/${id}`, { key })).status).toBe(200);
    await s.sweep();
    for (const k of previews) expect(await s.storage.head(k), k).toBeNull();
  });

  it("removes a carousel image's preview when the image is removed, and makes its replacement's", async () => {
    const made = await uploadItem(s, key, await noisePhoto('r1.jpg', 500, 400), { type: 'carousel' });
    await uploadItem(s, key, await noisePhoto('r2.jpg', 400, 500), { contentItemId: made.item.id });
    await uploadItem(s, key, await noisePhoto('r3.jpg', 300, 300), { contentItemId: made.item.id });
    await s.previewsDone();
    const [first] = (await getItem(s, key, made.item.id)).files;
    const preview = previewKeyOf(first!.fileKey);
    expect(await s.storage.head(preview)).not.toBeNull();
    const r = await call('DELETE', `${s.url}/api/v1/content/${made.item.id}/files/${first!.id}`, { key });
    expect(r.status, r.text).toBe(200);
    await s.sweep();
    expect(await s.storage.head(preview)).toBeNull();
    // The new first image has its preview, and so has the item.
    const after = await getItem(s, key, made.item.id);
    expect(after.files).toHaveLength(2);
    expect(new URL(after.item.previewUrl!).pathname).toBe(new URL(after.files[0]!.previewUrl!).pathname);
  });
});

describe.skipIf(noFfmpeg)('the work happens after complete, bounded, and survives restarts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-ffmpeg-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('answers complete and lists the item while its poster is still being made; the poster follows', async () => {
    // The real ffmpeg, held back until the test lets it go: the job is running, not done.
    const gated = await ffmpegScript(
      dir,
      `touch "${dir}/started"\nwhile [ ! -e "${dir}/go" ]; do sleep 0.05; done\nexec "${FFMPEG}" "$@"`,
    );
    const { s, key } = await serverWithKey({ previews: { ffmpeg: gated } });
    try {
      const p = await presign(s, key, fadeIn, { type: 'shortform' });
      expect((await put(p.body.presignedUrl, fadeIn)).status).toBe(200);
      const c = await complete(s, key, p.body.key, fadeIn, 'shortform');
      expect(c.status, c.text).toBe(200);
      expect((c.body.item as Shown).posterUrl).toBeNull();
      await waitFor(() =>
        stat(join(dir, 'started')).then(
          () => true,
          () => false,
        ),
      );
      const list = await call<{ items: Shown[] }>('GET', `${s.url}/api/v1/content`, { key });
      expect(list.body.items.map((i) => [i.id, i.posterUrl])).toEqual([[c.body.contentItemId, null]]);
      await writeFile(join(dir, 'go'), '');
      await s.previewsDone();
      expect((await getItem(s, key, c.body.contentItemId)).item.posterUrl).toEqual(expect.any(String));
    } finally {
      await s.dispose();
    }
  });

  it('records a failure, tries again after a restart, and gives up after three tries', async () => {
    const failing = await ffmpegScript(dir, 'echo "Invalid data found when processing input" >&2\nexit 1');
    await rm(join(dir, 'runs'), { force: true });
    const { s, key } = await serverWithKey({ previews: { ffmpeg: failing } });
    try {
      const made = await uploadItem(s, key, fadeIn, { type: 'shortform' });
      await s.previewsDone();
      expect(await runsOf(dir)).toBe(1);
      for (let i = 0; i < 3; i++) {
        await s.restart();
        await s.previewsDone();
      }
      // One run a try: three in all, however often the server starts again.
      expect(await runsOf(dir)).toBe(3);
      expect((await getItem(s, key, made.item.id)).item.posterUrl).toBeNull();
    } finally {
      await s.dispose();
    }
  });

  it('makes the posters of items stored before, at start (older libraries, restarted jobs)', async () => {
    const { s, key } = await serverWithKey({ previews: { enabled: false } });
    try {
      const made = await uploadItem(s, key, fadeIn, { type: 'shortform' });
      await s.restart({ previews: { ffmpeg: FFMPEG } });
      await s.previewsDone();
      expect((await getItem(s, key, made.item.id)).item.posterUrl).toEqual(expect.any(String));
    } finally {
      await s.dispose();
    }
  });
});

describe('without ffmpeg', () => {
  it('makes no posters (browse shows a frame of the video itself) but still previews images', async () => {
    const { s, key } = await serverWithKey({ previews: { ffmpeg: null } });
    try {
      const clip = await uploadItem(s, key, fadeIn, { type: 'shortform' });
      const photo = await uploadItem(s, key, await noisePhoto('p.jpg', 640, 480), { type: 'carousel' });
      await s.previewsDone();
      expect((await getItem(s, key, clip.item.id)).item.posterUrl).toBeNull();
      expect((await getItem(s, key, photo.item.id)).item.previewUrl).toEqual(expect.any(String));
    } finally {
      await s.dispose();
    }
  });

  it("makes a video's poster from its thumbnail when one is set, and again when it changes", async () => {
    const { s, key } = await serverWithKey({ previews: { ffmpeg: null } });
    try {
      const clip = await uploadItem(s, key, fadeIn, { type: 'shortform' });
      const colourOf = async () => {
        await s.previewsDone();
        const { item } = await getItem(s, key, clip.item.id);
        const { channels } = await sharp(await fetchBytes(item.posterUrl!)).stats();
        return channels[0]!.mean > 200 ? 'red' : channels[2]!.mean > 200 ? 'blue' : 'other';
      };
      await setThumbnail(s, key, clip.item.id, await solid('red.png', { r: 255, g: 0, b: 0 }));
      expect(await colourOf()).toBe('red');
      await setThumbnail(s, key, clip.item.id, await solid('blue.png', { r: 0, g: 0, b: 255 }));
      expect(await colourOf()).toBe('blue');
    } finally {
      await s.dispose();
    }
  });

  it('refuses to start with an --ffmpeg that is not a program', async () => {
    await expect(startTestServer({ previews: { ffmpeg: '/nonexistent/ffmpeg' } })).rejects.toThrow(
      /--ffmpeg \/nonexistent\/ffmpeg: no such program/,
    );
  });
});

/** A one-colour PNG of 1000x800. */
async function solid(name: string, background: { r: number; g: number; b: number }): Promise<FileSpec> {
  const bytes = await sharp({ create: { width: 1000, height: 800, channels: 3, background } })
    .png()
    .toBuffer();
  return { fileName: name, contentType: 'image/png', bytes };
}

async function waitFor(ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('waited in vain');
    await new Promise((r) => setTimeout(r, 50));
  }
}
