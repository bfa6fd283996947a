// The way out and back in, with the built CLI: a library made on the embedded default (videos
// with sidecars, a longform, carousels, thumbnails on a video and on a carousel, statuses,
// platform settings, edited titles) is exported, uploaded into `contentlib serve` on PostgreSQL
// + S3 (RGW), and exported again. The two libraries list the same items (apart from ids,
// timestamps and URLs), every file's bytes are equal, --verify finds nothing different on
// either side, and uploading the export a second time creates nothing.
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { type ServedOnS3, serveOnS3 } from '../support/serve-on-s3.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';

let dir: string;
let served: ServedOnS3<TcpProxy>;
const homeA = () => join(dir, 'home-a');
const homeB = () => join(dir, 'home-b');

/** The embedded library of home A. */
const onA = (args: string[]) => cli(homeA(), args);
/** serve on PostgreSQL + S3, from home B (its own upload journal). */
const onB = (args: string[]) =>
  cli(homeB(), args, {
    env: { CONTENTLIB_BASE_URL: served.instance.url, CONTENTLIB_API_KEY: served.key, CONTENTLIB_EMBEDDED: undefined },
  });

function ok(r: CliResult): CliResult {
  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  return r;
}

/**
 * `ls --all --json` without what differs between libraries by nature: ids, timestamps, URLs, and
 * who made and changed each item (`createdBy`/`updatedBy`: a key id, its name and a time, of
 * this library).
 */
async function listed(run: (args: string[]) => Promise<CliResult>): Promise<string[]> {
  const items = JSON.parse(ok(await run(['ls', '--all', '--json'])).stdout) as Array<Record<string, unknown>>;
  return items
    .map(
      ({ id: _id, createdAt: _c, updatedAt: _u, createdBy: _cb, updatedBy: _ub, fileUrl: _f, thumbnailUrl, ...rest }) =>
        JSON.stringify({ ...rest, thumbnail: thumbnailUrl !== null }),
    )
    .sort();
}

/** Per item of an export: its type, its sidecar, and the SHA-256 of each file in order and of its thumbnail. */
async function contents(exportDir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(exportDir, 'contentlib.json'), 'utf8')) as {
    items: Array<{ type: string; files: Array<string | { path: string; fileName: string }>; thumbnail?: string }>;
  };
  const hash = async (rel: string) =>
    createHash('sha256')
      .update(await readFile(join(exportDir, rel)))
      .digest('hex');
  const out: string[] = [];
  for (const item of manifest.items) {
    const paths = item.files.map((f) => (typeof f === 'string' ? f : f.path));
    const names = item.files.map((f) => (typeof f === 'string' ? f.split('/').pop() : f.fileName));
    const folder = paths[0]!.split('/')[0]!;
    const sidecar = item.type === 'carousel' ? `${folder}/carousel.json` : `${paths[0]}.json`;
    out.push(
      JSON.stringify({
        type: item.type,
        names,
        files: await Promise.all(paths.map(hash)),
        thumbnail: item.thumbnail ? await hash(item.thumbnail) : null,
        sidecar: await readFile(join(exportDir, sidecar), 'utf8'),
      }),
    );
  }
  return out.sort();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-roundtrip-'));
  // The library on the embedded default: the demo folder (a video with a sidecar, a .mov, a
  // carousel with its sidecar), a second carousel, and a longform.
  const tree = join(dir, 'tree');
  await cp(join(FIXTURES, 'demo'), tree, { recursive: true });
  await mkdir(join(tree, 'stills'));
  for (const name of ['photo.webp', 'photo.png', 'photo.jpg'])
    await cp(join(FIXTURES, 'image', name), join(tree, 'stills', name));
  await writeFile(join(tree, 'stills', 'carousel.json'), JSON.stringify({ title: 'Stills', hashtags: ['b', 'a'] }));
  ok(await onA(['upload', tree]));
  ok(await onA(['upload', '--type', 'longform', '--title', 'A long talk', join(FIXTURES, 'video/clip-5s.mov')]));
  const ids = JSON.parse(ok(await onA(['ls', '--json', 'id,title'])).stdout) as Array<{ id: string; title: string }>;
  const id = (title: string) => ids.find((i) => i.title === title)!.id;
  ok(
    await onA([
      'edit',
      id('Intro to the demo library'),
      '--title',
      'Intro, edited',
      '--status',
      'published',
      '--platform',
      'youtube.visibility=private',
      '--platform',
      'tiktok.duet=false',
      '--thumbnail',
      join(FIXTURES, 'image/photo.png'),
    ]),
  );
  ok(
    await onA(['edit', id('Demo carousel'), '--status', 'scheduled', '--thumbnail', join(FIXTURES, 'image/photo.jpg')]),
  );
  ok(await onA(['edit', id('teaser'), '--status', 'failed', '--description', 'A teaser, in two seconds']));
  served = await serveOnS3(dir, 'roundtrip', (endpoint) => startTcpProxy([endpoint]));
}, 180_000);

afterAll(async () => {
  await served?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('export, upload into serve on PostgreSQL + S3, export again', () => {
  it('gives the same library, byte for byte, that --verify finds equal; a second upload creates nothing', async () => {
    const first = join(dir, 'export-a');
    const exported = ok(await onA(['export', first]));
    expect(exported.stderr).toMatch(/5 items in .*: 5 new, 0 changed, 0 unchanged/);

    const uploaded = ok(await onB(['upload', first]));
    expect(uploaded.stderr).toContain('5 items created');

    const second = join(dir, 'export-b');
    ok(await onB(['export', second]));

    const a = await listed(onA);
    expect(a).toHaveLength(5);
    expect(await listed(onB)).toEqual(a);
    expect(await contents(second)).toEqual(await contents(first));

    const verifiedB = ok(await onB(['export', '--verify', second]));
    expect(verifiedB.stdout).toBe('');
    expect(verifiedB.stderr).toMatch(/^\d+ same, 0 missing here \(\+\), 0 missing there \(-\), 0 different \(\*\)\.$/m);
    ok(await onA(['export', '--verify', first]));

    const again = ok(await onB(['upload', first]));
    expect(again.stderr).toContain('Nothing new to upload');
    expect(await listed(onB)).toEqual(a);
  });

  it('--verify exits 1 and names what differs', async () => {
    const first = join(dir, 'export-a');
    const ids = JSON.parse(ok(await onA(['ls', '--json', 'id,title'])).stdout) as Array<{ id: string; title: string }>;
    const talk = ids.find((i) => i.title === 'A long talk')!.id;
    ok(await onA(['edit', talk, '--title', 'A longer talk']));
    const r = await onA(['export', '--verify', first]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(`* ${talk}/clip-5s.mov.json  (metadata differs: title)`);
    expect(r.stderr).toContain('1 difference between');
  });
});
