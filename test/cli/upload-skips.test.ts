// What an upload does not send, said by the CLI against its embedded library, each command line
// run in-process as the binary would run it (test/support/cli-in-process.ts): skipped files in
// logs and in NDJSON, --strict, links that leave the named folders, names at the file system's
// limit or with control characters, and images appended to an existing carousel. On a terminal:
// test/e2e/upload-skips.test.ts.
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAll } from '../support/cli.js';
import { cli as runCli } from '../support/cli-in-process.js';
import { SHOOT, layout, tempDirEach } from '../support/tree.js';

const home = tempDirEach('contentlib-skips-home-');
const work = tempDirEach('contentlib-skips-work-');

function cli(args: string[]) {
  return runCli(home(), args, { cwd: work(), env: { NO_COLOR: '1' } });
}

const ls = () => listAll(cli);

const ndjson = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('upload: nothing is skipped silently', () => {
  it('lists every skipped file in a log, counts system files on one line, and uploads the rest', async () => {
    await layout(work(), SHOOT);
    const r = await cli(['upload', 'shoot']);
    expect(r.exitCode, r.stderr).toBe(0);
    const err = r.stderr.split('\n');
    expect(err.filter((l) => l.startsWith('skipped  '))).toEqual([
      'skipped  shoot/loop.gif: a GIF, not supported; convert it to MP4 (animated, as a video) or PNG (a still image)',
      'skipped  shoot/notes.txt: not a photo or video (.txt)',
      'skipped  shoot/pics/3.heic: a HEIC image, not supported; convert it to JPEG',
      'skipped  2 system files (.DS_Store, Thumbs.db)',
    ]);
    expect(r.stderr).toContain('2 items created');
    expect(r.stderr).toContain('5 files in the folders skipped, not uploaded (listed above).');
    // The folder's carousel is titled after its folder, not after its first image.
    const items = await ls();
    expect(items.map((i) => [i.type, i.title]).sort()).toEqual([
      ['carousel', 'pics'],
      ['shortform', 'a'],
    ]);
  });

  it('writes a skipped event per file and a count in the summary with --json', async () => {
    await layout(work(), SHOOT);
    const r = await cli(['upload', '--json', 'shoot']);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    const skipped = events.filter((e) => e.type === 'skipped');
    expect(skipped).toContainEqual({
      type: 'skipped',
      // The same `file` object as in every event: absolute path, name.
      file: { path: join(work(), 'shoot/pics/3.heic'), name: '3.heic', size: null, item: null, role: 'file' },
      path: 'shoot/pics/3.heic',
      kind: 'unsupported',
      reason: 'a HEIC image, not supported',
      hint: 'convert it to JPEG',
    });
    expect(skipped.map((e) => e.kind).sort()).toEqual(['not-media', 'system', 'system', 'unsupported', 'unsupported']);
    expect(events.at(-1)).toMatchObject({ type: 'summary', created: 2, skippedFiles: 5 });
  });

  it('--strict refuses the upload for skipped media files (exit 2), sends nothing, and says why on stdout with --json', async () => {
    await layout(work(), SHOOT);
    const plain = await cli(['upload', '--strict', 'shoot']);
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toContain('2 problems found; nothing was uploaded');
    expect(plain.stderr).toContain(
      'shoot/pics/3.heic: would be skipped (a HEIC image, not supported); convert it to JPEG, or leave out --strict',
    );
    expect(await ls()).toEqual([]);

    const json = await cli(['upload', '--json', '--strict', 'shoot']);
    expect(json.exitCode).toBe(2);
    const events = ndjson(json.stdout);
    expect(events.filter((e) => e.type === 'problem').map((e) => e.subject)).toEqual([
      'shoot/loop.gif',
      'shoot/pics/3.heic',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'summary', refused: true, problems: 2, skippedFiles: 5, created: 0 });
    expect(await ls()).toEqual([]);
  });

  it('names the skipped HEIC when a folder is left with one image, with --json too', async () => {
    await layout(work(), { 'pair/a.png': 'image/photo.png', 'pair/b.heic': 'other/unsupported/photo.heic' });
    const r = await cli(['upload', 'pair']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('skipped  pair/b.heic: a HEIC image, not supported; convert it to JPEG');
    expect(r.stderr).toContain(
      'pair/a.png: a carousel needs at least 2 images; got only 1 from pair; skipped there: pair/b.heic (a HEIC image, not supported); convert it to JPEG',
    );
    const json = await cli(['upload', '--json', 'pair']);
    expect(json.exitCode).toBe(2);
    const events = ndjson(json.stdout);
    expect(events.map((e) => e.type)).toEqual(['skipped', 'problem', 'summary']);
    // About the carousel, not one file: `file` is null, `subject` what the message names.
    expect(events[1]).toMatchObject({ type: 'problem', file: null, subject: 'pair/a.png', rule: 'carousel' });
  });
});

describe('upload: symbolic links', () => {
  it('follows links inside the named folder; skips and reports links leaving it, broken ones and loops; never fails for them', async () => {
    // Other bytes outside: the same bytes would be found in the library and not sent again.
    await layout(work(), { 'd/real/a.mp4': 'video/clip-5s.mp4', 'outside/secret.mp4': 'video/clip-5s.mov' });
    await symlink(join(work(), 'd/real/a.mp4'), join(work(), 'd/alias.mp4'));
    await symlink('..', join(work(), 'd/up'));
    await symlink(join(work(), 'outside/secret.mp4'), join(work(), 'd/secret.mp4'));
    await symlink('gone.mp4', join(work(), 'd/broken.mp4'));
    await symlink('self', join(work(), 'd/self'));
    const r = await cli(['upload', 'd']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('skipped  '))).toEqual([
      'skipped  d/broken.mp4: broken symbolic link (to gone.mp4); fix or remove the link',
      'skipped  d/secret.mp4: symbolic link to outside/secret.mp4, outside the folders named; name that file or folder on the command line to upload it',
      'skipped  d/self: symbolic link loop',
      'skipped  d/up: symbolic link to the working folder, outside the folders named; name that file or folder on the command line to upload it',
    ]);
    const items = await ls();
    expect(items.map((i) => i.fileName).sort()).toEqual(['a.mp4', 'alias.mp4']);
    // The outside file is uploaded when named.
    const named = await cli(['upload', 'd/secret.mp4']);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(await ls()).toHaveLength(3);
  });

  it('--strict refuses a link to a video outside the folder', async () => {
    await layout(work(), { 'd/a.mp4': 'video/clip-5s.mp4', 'outside/secret.mp4': 'video/clip-5s.mp4' });
    await symlink(join(work(), 'outside/secret.mp4'), join(work(), 'd/secret.mp4'));
    const r = await cli(['upload', '--strict', 'd']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('d/secret.mp4: would be skipped (symbolic link to outside/secret.mp4');
    expect(await ls()).toEqual([]);
  });
});

describe('upload: names', () => {
  it('uploads a video whose name is 255 bytes, the file system limit', async () => {
    const name = `${'é'.repeat(125)}x.mp4`; // 250 + 1 + 4 bytes in UTF-8
    expect(Buffer.byteLength(name)).toBe(255);
    await layout(work(), { [name]: 'video/clip-5s.mp4' });
    const r = await cli(['upload', name]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('ENAMETOOLONG');
    expect((await ls()).map((i) => i.fileName)).toEqual([name]);
  });

  it('escapes newlines and tabs in names, so every output row stays one row', async () => {
    await layout(work(), { 'odd/new\nline.mp4': 'video/clip-5s.mp4', 'odd/tab\there.mp4': 'video/clip-5s.mp4' });
    const r = await cli(['upload', 'odd']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split('\t')).toHaveLength(4);
    expect(rows.map((row) => row.split('\t')[3]).sort()).toEqual(['"odd/new\\nline.mp4"', '"odd/tab\\there.mp4"']);
    expect(r.stderr).toContain('done     "new\\nline.mp4" →');
    expect(r.stderr).not.toMatch(/new\nline/);
  });

  it('escapes a control character in a refused name', async () => {
    await layout(work(), { 'bad\u001b[2Jname.mp4': 'video/clip-2s.mp4' });
    const r = await cli(['upload', '--type', 'shortform', 'bad\u001b[2Jname.mp4']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"bad\\033[2Jname.mp4": 2 s is shorter than shortform\'s 3 s');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/\u001b/);
  });
});

describe('upload: appending to a carousel', () => {
  it('reports images added to an existing carousel as appended, not created', async () => {
    await layout(work(), {
      'set/1.jpg': 'image/photo.jpg',
      'set/2.png': 'image/photo.png',
      'more/3.webp': 'image/photo.webp',
    });
    expect((await cli(['upload', 'set'])).exitCode).toBe(0);
    const [carousel] = await ls();
    const r = await cli(['upload', '--to', carousel!.id, 'more/3.webp']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Appended 1 image to ${carousel!.id}.`);
    expect(r.stderr).not.toContain('1 item created');
    expect(r.stdout.trim()).toBe(`${carousel!.id}\tcarousel\tappended\tmore`);
    const json = await cli(['upload', '--json', '--force', '--to', carousel!.id, 'more/3.webp']);
    expect(ndjson(json.stdout).at(-1)).toMatchObject({ type: 'summary', created: 0, appended: 1 });
  });
});
