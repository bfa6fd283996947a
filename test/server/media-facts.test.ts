// Media facts in the API (issue 39, docs/api.md "Media facts"): measured by the server at
// complete from the stored object (the same parsers as the CLI: src/media/facts.ts), kept with
// the item (a video's on the item, a carousel's per image in its files), and measured by the
// sweeper for files stored before facts were kept. Runs on SQLite + disk and on PostgreSQL + S3.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetResponseSchema } from '../../src/api/response-schemas.js';
import { FIXTURES } from '../support/paths.js';
import { type FileSpec, type TestServer, call, execOnLibrary, serverWithKey, uploadItem } from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await serverWithKey()));
afterAll(async () => s.dispose());

const fixture = (name: string, contentType: string): FileSpec => ({
  fileName: name,
  contentType,
  bytes: readFileSync(join(FIXTURES, 'media', name)),
});

/** GET /content/:id, parsed by the client's own schema (so the facts are proved to parse). */
async function get(id: string) {
  const r = await call('GET', `${s.url}/api/v1/content/${id}`, { key });
  expect(r.status).toBe(200);
  return GetResponseSchema.parse(r.body);
}

describe('media facts measured at complete', () => {
  it('a video: its size, shape, codec, audio and layout, in the complete answer and on GET', async () => {
    const made = await uploadItem(s, key, fixture('portrait-1080x1920.mp4', 'video/mp4'));
    const expected = {
      kind: 'video',
      width: 1080,
      height: 1920,
      displayAspectRatio: '9:16',
      orientation: 'portrait',
      rotation: 0,
      frameRate: 30,
      videoCodec: 'h264',
      videoProfile: 'High',
      bitDepth: 8,
      audio: { codec: 'aac', profile: 'LC', channels: 2, sampleRate: 48000 },
      fastStart: true,
    };
    expect(made.item.media).toMatchObject(expected);
    const { item } = await get(made.contentItemId);
    expect(item.media).toMatchObject(expected);
    expect(item.media!.durationSeconds).toBeCloseTo(3, 1);
    // Listed with its facts too (ls --json shows what the list answers).
    const list = await call<{ items: Array<{ id: string; media: unknown }> }>('GET', `${s.url}/api/v1/content`, {
      key,
    });
    expect(list.body.items.find((i) => i.id === made.contentItemId)!.media).toMatchObject({ width: 1080 });
  });

  it('a phone clip turned by its matrix is portrait; one with its index last is not fast start', async () => {
    const turned = await uploadItem(s, key, fixture('rotated-90.mp4', 'video/mp4'), { type: 'longform' });
    expect((await get(turned.contentItemId)).item.media).toMatchObject({
      rotation: 90,
      displayWidth: 72,
      displayHeight: 128,
      orientation: 'portrait',
      audio: null,
    });
    const late = await uploadItem(s, key, fixture('h264-moov-at-end.mp4', 'video/mp4'), { type: 'longform' });
    expect((await get(late.contentItemId)).item.media).toMatchObject({ fastStart: false });
  });

  it('a carousel: each image its own facts in the files list; the item has none of its own', async () => {
    const first = await uploadItem(s, key, fixture('photo-exif-6.jpg', 'image/jpeg'));
    await uploadItem(s, key, fixture('photo.png', 'image/png'), { contentItemId: first.contentItemId });
    const { item, files } = await get(first.contentItemId);
    expect(item.media).toBeNull();
    expect(files.map((f) => f.media)).toMatchObject([
      { kind: 'image', width: 120, height: 80, exifOrientation: 6, displayWidth: 80, orientation: 'portrait' },
      { kind: 'image', width: 120, height: 80, exifOrientation: 1, orientation: 'landscape', imageFormat: 'png' },
    ]);
  });
});

describe('files stored before facts were kept', () => {
  /** What a library made by an earlier version holds: the same rows, without facts. */
  async function forgetMedia(): Promise<void> {
    await execOnLibrary(s, ['UPDATE items SET media = NULL', 'UPDATE carousel_files SET media = NULL']);
  }

  it('show null until the sweeper measures them from the stored objects', async () => {
    const v = await uploadItem(s, key, fixture('hevc-10bit.mp4', 'video/mp4'), { type: 'longform' });
    const c = await uploadItem(s, key, fixture('photo-lossy.webp', 'image/webp'));
    await forgetMedia();
    expect((await get(v.contentItemId)).item.media).toBeNull();
    expect((await get(c.contentItemId)).files[0]!.media).toBeNull();

    const report = await s.sweep();
    expect(report.media).toBeGreaterThanOrEqual(2);
    expect((await get(v.contentItemId)).item.media).toMatchObject({ videoCodec: 'hevc', bitDepth: 10 });
    expect((await get(c.contentItemId)).files[0]!.media).toMatchObject({ imageFormat: 'webp', width: 120 });
    // A carousel item keeps none of its own; nothing is left to measure.
    expect((await get(c.contentItemId)).item.media).toBeNull();
    expect((await s.sweep()).media).toBe(0);
  });
});
