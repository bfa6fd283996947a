// upload's rough edges of issue 29, in-process against a real server on 127.0.0.1: exit codes,
// JSON on stdout for every refusal, every NDJSON line checked against the schema of
// src/cli/output/upload-ndjson.ts, `started` only when bytes start, the byte count after Ctrl-C,
// appending reported as appending, --to over the limit, --skip-invalid, --split, and --dry-run
// with the journal and its "Dry run" line in every mode.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/errors.js';
import { cli as runCli } from '../support/cli-in-process.js';
import { sparseVideo } from '../support/library.js';
import { FIXTURES } from '../support/paths.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type ThrottleProxy, startThrottleProxy } from '../support/throttle-proxy.js';
import { uploadLines, uploadSummary } from '../support/upload-json.js';

let server: TestServer;
let key: string;
let home: string;
let work: string;
beforeAll(async () => {
  server = await startTestServer({ clock: 'real' });
  key = await server.key('edges');
  home = await mkdtemp(join(tmpdir(), 'contentlib-edges-home-'));
  work = await mkdtemp(join(tmpdir(), 'contentlib-edges-work-'));
});
afterAll(async () => {
  await server.dispose();
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const remote = () => ({ CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: key });
const cli = (args: string[], env: Record<string, string | undefined> = remote(), signal?: AbortSignal) =>
  runCli(home, args, { cwd: work, env, ...(signal ? { signal } : {}) });

/** Copies fixtures (or writes bytes) into the work folder: { 'to/path': 'fixture/path' | Buffer }. */
async function layout(files: Record<string, string | Buffer>): Promise<void> {
  for (const [to, from] of Object.entries(files)) {
    await mkdir(dirname(join(work, to)), { recursive: true });
    if (typeof from === 'string') await cp(join(FIXTURES, from), join(work, to), { recursive: true });
    else await writeFile(join(work, to), from);
  }
}

/**
 * A JPEG of its own: the fixture's bytes and a tail after its end marker. The library knows files
 * by their bytes (a copy of one it holds is not sent again), so images meant to be new differ.
 */
async function uniqueJpeg(to: string): Promise<void> {
  const bytes = await readFile(join(FIXTURES, 'image/photo.jpg'));
  await layout({ [to]: Buffer.concat([bytes, Buffer.from(`${to} ${Math.random()}`)]) });
}

describe('--json: stdout says what happened in every run, refusals included', () => {
  it.each([
    [
      'a refused plan (a missing file, an empty one)',
      ['upload', '--json', 'nope.mp4', 'empty.mp4'],
      { REMOTE: '1' },
      EXIT.usage,
    ],
    ['no paths at all', ['upload', '--json'], { REMOTE: '1' }, EXIT.usage],
    ['a flag upload does not know', ['upload', '--json', '--bogus', 'x.mp4'], { REMOTE: '1' }, EXIT.usage],
    [
      'no remote configured, in CI',
      ['upload', '--json', 'ok.mp4'],
      { CI: '1', CONTENTLIB_EMBEDDED: undefined },
      EXIT.auth,
    ],
    [
      'a base URL without a key (the secret is missing)',
      ['upload', '--json', 'ok.mp4'],
      { CONTENTLIB_BASE_URL: 'http://127.0.0.1:9' },
      EXIT.auth,
    ],
    [
      'a key the service refuses',
      ['upload', '--json', 'ok.mp4'],
      { CONTENTLIB_BASE_URL: 'SERVER', CONTENTLIB_API_KEY: 'cl_notavalidkeynotavalidkeynotavalidkeynotava' },
      EXIT.auth,
    ],
  ])('%s: its exit code, and a summary with every field', async (_what, args, env, code) => {
    await layout({ 'ok.mp4': 'video/clip-5s.mp4', 'empty.mp4': Buffer.alloc(0) });
    // The table is read before the server starts: REMOTE and SERVER stand for it.
    const withServer = (
      'REMOTE' in env
        ? remote()
        : Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'SERVER' ? server.url : v]))
    ) as Record<string, string | undefined>;
    const r = await cli(args as string[], withServer);
    expect(r.exitCode, r.stderr).toBe(code);
    const summary = uploadSummary(r);
    expect(summary.exitCode).toBe(code);
    expect(summary.created).toBe(0);
    expect(summary.bytesSent).toBe(0);
    // stderr still speaks to people.
    expect(r.stderr).toMatch(/^Error: |\nError: /);
  });

  it('a refused plan: problem events name the file with the same object as every event', async () => {
    await layout({ 'empty.mp4': Buffer.alloc(0), 'a.mp4': 'video/clip-5s.mp4' });
    const r = await cli(['upload', '--json', 'empty.mp4', 'a.mp4', '--title', 'Same']);
    expect(r.exitCode).toBe(EXIT.usage);
    const problems = uploadLines(r).filter((l) => l.type === 'problem');
    expect(problems).toContainEqual(
      expect.objectContaining({
        file: { path: join(work, 'empty.mp4'), name: 'empty.mp4', size: null, item: null, role: 'file' },
        subject: 'empty.mp4',
        rule: 'empty',
      }),
    );
    // A problem about a flag names no file.
    expect(problems).toContainEqual(expect.objectContaining({ file: null, subject: '--title', rule: 'usage' }));
    expect(uploadSummary(r)).toMatchObject({
      refused: true,
      problems: problems.length,
      target: { baseUrl: server.url },
    });
  });

  it('a run that works: every line fits the schema, and the summary counts what it did', async () => {
    await layout({ 'demo/': 'demo' });
    const r = await cli(['upload', '--json', 'demo', '--force']);
    expect(r.exitCode, r.stderr).toBe(0);
    const all = uploadLines(r);
    const started = all.filter((l) => l.type === 'started');
    expect(started).toHaveLength(5);
    expect(uploadSummary(r)).toMatchObject({ exitCode: 0, refused: false, created: 3, appended: 0, leftOut: 0 });
  });
});

describe('started means bytes started', () => {
  it('with the service down, no file is started; each says it failed', async () => {
    await layout({ 'a.mp4': 'video/clip-5s.mp4' });
    // A port nothing listens on: presign never answers.
    const r = await cli(['upload', '--json', 'a.mp4'], {
      CONTENTLIB_BASE_URL: 'http://127.0.0.1:9',
      CONTENTLIB_API_KEY: key,
    });
    expect(r.exitCode).toBe(EXIT.failure);
    const all = uploadLines(r);
    expect(all.filter((l) => l.type === 'started')).toEqual([]);
    // The first request is the library's duplicate check (or presign, without it): it fails, and
    // nothing was started.
    expect(all.filter((l) => l.type === 'failed')).toEqual([
      expect.objectContaining({
        step: expect.stringMatching(/^(check|presign)$/),
        file: expect.objectContaining({ name: 'a.mp4' }),
      }),
    ]);
  });
});

describe('appending to a carousel', () => {
  it('is reported as appended, not created; over the limit, the hint says how many fit, not to fix the id', async () => {
    await uniqueJpeg('set/1.jpg');
    await uniqueJpeg('set/2.jpg');
    await uniqueJpeg('more/3.jpg');
    const first = await cli(['upload', '--json', 'set']);
    const id = uploadSummary(first).items[0]!.id!;
    const plain = await cli(['upload', '--to', id, 'more/3.jpg']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    const said = plain.stderr.split('\n');
    expect(said.find((l) => l.includes(' sent in '))).toMatch(/^1 carousel appended to; .* sent in /);
    expect(plain.stderr).toContain(`Appended 1 image to ${id}.`);
    expect(plain.stdout).toContain(`${id}\tcarousel\tappended`);

    await uniqueJpeg('more/4.jpg');
    const json = await cli(['upload', '--json', '--to', id, 'more/4.jpg']);
    expect(uploadSummary(json)).toMatchObject({ created: 0, appended: 1, items: [{ id, outcome: 'appended' }] });

    // 4 images now; 7 more would be 11.
    for (let k = 0; k < 7; k++) await uniqueJpeg(`seven/${k}.jpg`);
    const over = await cli(['upload', '--json', '--to', id, 'seven']);
    expect(over.exitCode).toBe(EXIT.usage);
    expect(over.stderr).toContain(
      `carousel ${id} has 4 images; 7 more would be over the maximum of 10; append at most 6`,
    );
    expect(over.stderr).toContain('Append fewer images');
    expect(over.stderr).not.toContain('Fix the carousel id');
    expect(uploadLines(over).filter((l) => l.type === 'problem')).toEqual([
      expect.objectContaining({ rule: 'carousel-full', file: null }),
    ]);
  });
});

describe('--skip-invalid', () => {
  it('leaves out what breaks a rule, uploads the rest, and exits 3 saying what was left out', async () => {
    await layout({
      'mixed/good.mp4': 'video/clip-5s.mp4',
      'mixed/empty.mp4': Buffer.alloc(0),
      'mixed/long.mp4': 'video/clip-95s.mp4',
      'mixed/pics/2.jpg': Buffer.from('not a jpeg'),
      'mixed/ok/2.png': 'image/photo.png',
    });
    await uniqueJpeg('mixed/pics/1.jpg');
    await uniqueJpeg('mixed/ok/1.jpg');
    const refused = await cli(['upload', '--type', 'shortform', 'mixed/good.mp4', 'mixed/long.mp4']);
    expect(refused.exitCode).toBe(EXIT.usage);
    expect(refused.stderr).toContain('add --skip-invalid to upload the rest');

    const r = await cli(['upload', '--skip-invalid', 'mixed']);
    expect(r.exitCode).toBe(EXIT.partial);
    expect(r.stderr).toContain('left out  mixed/empty.mp4: the file is empty (0 bytes)');
    expect(r.stderr).toContain('left out  mixed/pics/2.jpg:');
    // pics/ then holds one image: the carousel itself is left out too.
    expect(r.stderr).toContain('left out  mixed/pics/1.jpg: a carousel needs at least 2 images');
    expect(r.stderr).toContain('3 files left out as invalid (listed above');
    expect(r.stderr).toContain('Error: 3 files were left out as invalid (listed above); the rest was uploaded.');
    const sources = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[3]);
    expect(sources.sort()).toEqual(['mixed/good.mp4', 'mixed/long.mp4', 'mixed/ok']);

    const json = await cli(['upload', '--json', '--skip-invalid', '--force', 'mixed']);
    expect(json.exitCode).toBe(EXIT.partial);
    const left = uploadLines(json).filter((l) => l.type === 'problem');
    expect(left.every((l) => l.leftOut === true)).toBe(true);
    expect(uploadSummary(json)).toMatchObject({ exitCode: EXIT.partial, leftOut: 3, created: 3 });
  });

  it('still refuses what is about no file or item (a flag), exit 2, nothing sent', async () => {
    await layout({ 'solo.mp4': 'video/clip-5s.mp4', 'duo.mp4': 'video/clip-5s.mp4' });
    const r = await cli(['upload', '--skip-invalid', '--json', 'solo.mp4', 'duo.mp4', '--title', 'Same']);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toContain('--skip-invalid cannot leave them out');
    expect(uploadSummary(r)).toMatchObject({ refused: true, created: 0 });
  });
});

describe('--split', () => {
  it('makes a folder of 12 images two carousels of 6, in order, titled with their part', async () => {
    for (let k = 1; k <= 12; k++) await uniqueJpeg(`trip/${k}.jpg`);
    const without = await cli(['upload', 'trip']);
    expect(without.exitCode).toBe(EXIT.usage);
    expect(without.stderr).toContain('add --split');
    const r = await cli(['upload', '--json', '--split', 'trip']);
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = uploadSummary(r);
    expect(summary.items.map((i) => [i.source, i.filesTotal])).toEqual([
      ['trip (1/2)', 6],
      ['trip (2/2)', 6],
    ]);
    const titles = await Promise.all(
      summary.items.map(async (i) => JSON.parse((await cli(['show', i.id!, '--json', 'title'])).stdout).title),
    );
    expect(titles).toEqual(['trip (1/2)', 'trip (2/2)']);
  });
});

describe('--dry-run', () => {
  // A library of its own: the files of the other tests are in the shared one.
  let own: TestServer;
  beforeAll(async () => {
    own = await startTestServer({ clock: 'real' });
  });
  afterAll(() => own.dispose());

  it('says what the library has already, with a Dry run line in every mode', async () => {
    const env = { CONTENTLIB_BASE_URL: own.url, CONTENTLIB_API_KEY: await own.key('dry') };
    const run = (args: string[]) => cli(args, env);
    await layout({ 'dry/a.mp4': 'video/clip-5s.mp4', 'dry/b.mov': 'video/clip-5s.mov' });
    const before = await run(['upload', '--dry-run', 'dry']);
    expect(before.stderr).toMatch(/^Dry run: 2 items, 2 files, [^;]*; nothing was sent\.$/m);
    expect((await run(['upload', 'dry/a.mp4'])).exitCode).toBe(0);
    const plain = await run(['upload', '--dry-run', 'dry']);
    expect(plain.exitCode).toBe(0);
    expect(plain.stderr).toContain('; 1 already in the library, 1 to send; nothing was sent.');
    const json = await run(['upload', '--dry-run', '--json', 'dry']);
    // In a pipe and with --json too: the line is on stderr, the plan on stdout.
    expect(json.stderr).toMatch(/^Dry run: 2 items, 2 files, .*1 already in the library/m);
    const planned = JSON.parse(json.stdout) as { type: string; items: Array<{ library?: { kind: string } }> };
    expect(planned.type).toBe('dry-run');
    expect(planned.items.map((i) => i.library?.kind).sort()).toEqual(['new', 'uploaded']);
    // --force does not ask: a real run would send everything again.
    const forced = await run(['upload', '--dry-run', '--force', 'dry']);
    expect(forced.stderr).toMatch(/^Dry run: 2 items, 2 files, [^;]*; nothing was sent\.$/m);
  });
});

/** Resolves once a body being received in `dir` (the disk store's `*.part` files) holds some bytes. */
async function receiving(dir: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const parts = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));
    for (const p of parts) if ((await stat(join(dir, p)).catch(() => undefined))?.size) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no bytes arrived in 20 s');
}

describe('Ctrl-C during a transfer', () => {
  let slow: ThrottleProxy;
  let behind: TestServer;
  beforeAll(async () => {
    let url = '';
    slow = await startThrottleProxy(() => url, 256 * 1024);
    behind = await startTestServer({ clock: 'real', publicUrl: slow.url });
    url = behind.url;
  });
  afterAll(async () => {
    await slow.close();
    await behind.dispose();
  });

  it('counts the bytes that were on the wire, not 0', async () => {
    await sparseVideo(join(work, 'big/large.mp4'), 8 * 1024 * 1024);
    const controller = new AbortController();
    const env = { CONTENTLIB_BASE_URL: slow.url, CONTENTLIB_API_KEY: await behind.key('slow') };
    const running = cli(['upload', '--json', 'big/large.mp4'], env, controller.signal);
    // Once the server has received bytes of the 32-second transfer, Ctrl-C (main turns SIGINT
    // into this abort).
    await receiving(join(behind.dataDir, 'tmp'));
    controller.abort(new Error('SIGINT'));
    const r = await running;
    expect(r.exitCode).toBe(EXIT.interrupted);
    const summary = uploadSummary(r);
    expect(summary.interrupted).toBe(true);
    expect(summary.bytesSent).toBeGreaterThan(0);
    expect(summary.bytesSent).toBeLessThan(8 * 1024 * 1024);
    expect(uploadLines(r).filter((l) => l.type === 'started')).toHaveLength(1);
  });
});
