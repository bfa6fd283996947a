// An export folder someone else could have edited (issue 36): a line planted in its log
// (manifest.jsonl) or a path edited into its upload manifest (contentlib.json) that leads
// outside the folder — `..`, an absolute path, a symbolic link — is refused with the line or the
// item named, and nothing outside is read, written or deleted. In-process against a real server.
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { describeError } from '../../src/cli/error-messages.js';
import { EXIT } from '../../src/cli/errors.js';
import { ExportLogError } from '../../src/download/errors.js';
import { LOG_NAME } from '../../src/download/export-log.js';
import { runVerify } from '../../src/download/verify.js';
import { OutsideFolderError, confine, textLeaves } from '../../src/fs/confine.js';
import { buildPlan } from '../../src/upload/plan/plan.js';
import { quietExport } from '../support/export.js';
import { type TestServer, call, jpeg, mp4, serverWithKey, uploadItem } from '../support/server.js';

let s: TestServer;
let key: string;
let client: ApiClient;
let root: string;
let clipId: string;
let goneId: string;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  ({ s, key } = await serverWithKey({ clock: 'real' }));
  client = createApiClient({ baseUrl: s.url, apiKey: key, retry: NO_WAIT_RETRY });
  root = await mkdtemp(join(tmpdir(), 'contentlib-confine-'));
  clipId = (await uploadItem(s, key, { fileName: 'clip.mp4', contentType: 'video/mp4', bytes: mp4(10) })).item.id;
  goneId = (await uploadItem(s, key, { fileName: 'gone.mp4', contentType: 'video/mp4', bytes: mp4(12) })).item.id;
}, 60_000);

afterAll(async () => {
  await client?.close();
  await s?.dispose();
  if (root) await rm(root, { recursive: true, force: true });
});

function exportInto(dir: string) {
  return quietExport(client, s.url, dir);
}

/** A folder outside the export with one file in it, and what the file holds. */
async function victim(name: string): Promise<{ dir: string; file: string; bytes: Buffer }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const bytes = Buffer.from(`important ${name}\n`);
  const file = join(dir, 'important.doc');
  await writeFile(file, bytes);
  return { dir, file, bytes };
}

/** An item line for an item the library no longer has, naming `folder` and `path`, as the export writes one. */
function plantedLine(folder: string, path: string, bytes: Buffer): string {
  const record = {
    kind: 'item',
    id: randomUUID(),
    type: 'shortform',
    title: 'planted',
    status: 'draft',
    createdAt: '2026-01-01T00:00:00.000Z',
    folder,
    files: [{ path, size: bytes.length, sha256: sha(bytes), source: 'x' }],
    sidecar: { path, size: bytes.length, sha256: sha(bytes) },
    exportedAt: '2026-01-01T00:00:00.000Z',
  };
  return `${JSON.stringify(record)}\n`;
}

async function lineCount(dir: string): Promise<number> {
  return (await readFile(join(dir, LOG_NAME), 'utf8')).split('\n').filter((l) => l.trim() !== '').length;
}

describe('confine (src/fs/confine.ts)', () => {
  it.each([
    ['', 'is empty'],
    ['../x', 'climbs out of the folder with ..'],
    ['a/../../x', 'climbs out of the folder with ..'],
    ['..', 'climbs out of the folder with ..'],
    ['/etc/passwd', 'is absolute'],
    ['C:\\Windows\\x', 'is absolute'],
    ['c:x', 'is absolute'],
    ['\\\\server\\share\\x', 'is absolute'],
    ['..\\x', 'climbs out of the folder with ..'],
    ['a\u0000b', 'holds a NUL character'],
    ['a/b.jpg', undefined],
    ['a/../b.jpg', undefined],
    ['..b/c', undefined],
  ])('%j on its text: %s', (rel, reason) => {
    expect(textLeaves(rel)).toBe(reason);
  });

  it('follows links: one leading out (to a file, a folder, or nothing) is refused, one leading in is not', async () => {
    const base = await mkdtemp(join(root, 'links-'));
    const out = await victim('links-victim');
    await mkdir(join(base, 'in'));
    await writeFile(join(base, 'in', 'real.jpg'), 'x');
    await symlink(out.file, join(base, 'file-out'));
    await symlink(out.dir, join(base, 'dir-out'));
    await symlink(join(out.dir, 'nothing-yet'), join(base, 'dangling'));
    await symlink(join(base, 'in', 'real.jpg'), join(base, 'file-in'));
    for (const rel of ['file-out', 'dir-out/important.doc', 'dir-out/new.jpg', 'dangling'])
      await expect(confine(base, rel)).rejects.toBeInstanceOf(OutsideFolderError);
    expect(await confine(base, 'file-in')).toBe(join(base, 'file-in'));
    expect(await confine(base, 'in/not-yet/x.jpg')).toBe(join(base, 'in/not-yet/x.jpg'));
  });
});

describe('export never touches what is not its own', () => {
  type Shape = (v: { dir: string; file: string }) => [folder: string, path: string];
  const up: Shape = (v) => [`../${basename(v.dir)}`, `../${basename(v.dir)}/important.doc`];
  const absolute: Shape = (v) => [v.dir, v.file];
  it.each([
    ['../', up],
    ['an absolute path', absolute],
  ])('a planted log line with %s: exit 1 naming the line, the file outside untouched', async (name, paths) => {
    const dir = join(root, `exp-${name.length}`);
    const v = await victim(`victim-${name.length}`);
    await exportInto(dir);
    const before = await lineCount(dir);
    const [folder, path] = paths(v);
    await appendFile(join(dir, LOG_NAME), plantedLine(folder, path, v.bytes));
    const err = await exportInto(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExportLogError);
    expect((err as ExportLogError).line).toBe(before + 1);
    const { message, exitCode } = describeError(err);
    expect(exitCode).toBe(EXIT.failure);
    expect(message).toContain(`manifest.jsonl line ${before + 1}:`);
    expect(message).toMatch(/climbs out|is absolute/);
    expect(await readFile(v.file)).toEqual(v.bytes);
    expect(await readdir(v.dir)).toEqual(['important.doc']);
    // --verify reads the same log and refuses it the same way.
    await expect(
      runVerify(dir, undefined, { api: client, emit: () => {}, signal: new AbortController().signal, concurrency: 1 }),
    ).rejects.toBeInstanceOf(ExportLogError);
  });

  it('a planted line through a symbolic link in the folder: refused, naming the line; the file outside untouched', async () => {
    const dir = join(root, 'exp-link');
    const v = await victim('victim-link');
    await exportInto(dir);
    const before = await lineCount(dir);
    await symlink(v.dir, join(dir, 'lnk'));
    await appendFile(join(dir, LOG_NAME), plantedLine('lnk', 'lnk/important.doc', v.bytes));
    const err = await exportInto(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExportLogError);
    expect(describeError(err).message).toContain(`manifest.jsonl line ${before + 1}: the folder "lnk" leads through`);
    expect(await readFile(v.file)).toEqual(v.bytes);
  });

  it("a deleted item's file replaced by a link: the link is left, never followed to delete", async () => {
    const dir = join(root, 'exp-gone');
    const id = (await uploadItem(s, key, { fileName: 'short.mp4', contentType: 'video/mp4', bytes: mp4(11) })).item.id;
    await exportInto(dir);
    const video = join(dir, id, 'short.mp4');
    // The same bytes elsewhere in the folder, and the item's file now a link to them.
    const copy = join(dir, id, 'kept.bin');
    await writeFile(copy, await readFile(video));
    await rm(video);
    await symlink(copy, video);
    const r = await call('DELETE', `${s.url}/api/v1/content/${id}`, { key });
    expect(r.status).toBe(200);
    const summary = await exportInto(dir);
    expect(summary.removed).toBe(1);
    expect(summary.left).toEqual(expect.arrayContaining([`${id}/short.mp4`, `${id}/kept.bin`]));
    expect((await stat(copy)).isFile()).toBe(true);
  });

  it('a file the export wrote but someone changed (same size, other bytes) is left when its item goes', async () => {
    const dir = join(root, 'exp-changed');
    await exportInto(dir);
    const video = join(dir, goneId, 'gone.mp4');
    const bytes = await readFile(video);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    await writeFile(video, bytes);
    const r = await call('DELETE', `${s.url}/api/v1/content/${goneId}`, { key });
    expect(r.status).toBe(200);
    const summary = await exportInto(dir);
    expect(summary.left).toContain(`${goneId}/gone.mp4`);
    expect(await readFile(video)).toEqual(bytes);
  });
});

describe('upload of an edited export folder reads nothing outside it', () => {
  async function exported(name: string): Promise<string> {
    const dir = join(root, name);
    await exportInto(dir);
    return dir;
  }

  async function editManifest(dir: string, edit: (items: Array<Record<string, unknown>>) => void): Promise<void> {
    const path = join(dir, 'contentlib.json');
    const json = JSON.parse(await readFile(path, 'utf8')) as { items: Array<Record<string, unknown>> };
    edit(json.items);
    await writeFile(path, JSON.stringify(json));
  }

  it.each([
    ['an image at ../outside/', (o: string) => ({ files: [`../${o}/secret.jpg`], type: 'carousel' })],
    ['a video at an absolute path', (o: string) => ({ files: [join(root, o, 'secret.mp4')] })],
    ['a thumbnail at ../outside/', (o: string) => ({ thumbnail: `../${o}/secret.jpg` })],
  ])('%s: refused, naming the item; no item planned', async (name, change) => {
    const outside = `outside-${name.length}`;
    await mkdir(join(root, outside), { recursive: true });
    await writeFile(join(root, outside, 'secret.jpg'), jpeg(800));
    await writeFile(join(root, outside, 'secret.mp4'), mp4(10));
    const dir = await exported(`up-${name.length}`);
    await editManifest(dir, (items) => Object.assign(items[0]!, change(outside)));
    const plan = await buildPlan([dir], {}, { cwd: root });
    expect(plan.items).toEqual([]);
    expect(plan.problems).toHaveLength(1);
    expect(plan.problems[0]).toMatchObject({ rule: 'manifest', file: expect.stringContaining('item 1') });
    expect(plan.problems[0]!.message).toMatch(/climbs out|is absolute/);
  });

  it('a video replaced by a link to a file outside: refused, like the same link in any folder', async () => {
    const dir = await exported('up-link');
    const v = await victim('up-link-victim');
    const outsideVideo = join(v.dir, 'secret.mp4');
    await writeFile(outsideVideo, mp4(10));
    const video = join(dir, clipId, 'clip.mp4');
    await rm(video);
    await symlink(outsideVideo, video);
    const plan = await buildPlan([dir], {}, { cwd: root });
    expect(plan.items).toEqual([]);
    expect(plan.problems.map((p) => p.message)).toEqual([expect.stringContaining('leads through a symbolic link')]);
  });

  it('a sidecar replaced by a link out: not read, a problem instead', async () => {
    const dir = await exported('up-sidecar');
    const v = await victim('up-sidecar-victim');
    const outsideJson = join(v.dir, 'meta.json');
    await writeFile(outsideJson, JSON.stringify({ title: 'secret title from outside' }));
    const sidecar = join(dir, clipId, 'clip.mp4.json');
    await rm(sidecar);
    await symlink(outsideJson, sidecar);
    const plan = await buildPlan([dir], {}, { cwd: root });
    expect(JSON.stringify(plan.items)).not.toContain('secret title from outside');
    expect(plan.problems.map((p) => p.rule)).toContain('sidecar');
  });

  it('a link that stays inside the folder is followed, as in any folder', async () => {
    const dir = await exported('up-inside');
    const video = join(dir, clipId, 'clip.mp4');
    const moved = join(dir, clipId, 'moved.bin');
    await writeFile(moved, await readFile(video));
    await rm(video);
    await symlink(moved, video);
    const plan = await buildPlan([dir], {}, { cwd: root });
    expect(plan.problems).toEqual([]);
    expect(plan.items.length).toBeGreaterThan(0);
  });
});
