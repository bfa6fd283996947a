// The GitHub Action with a simulated runner: INPUT_* in the environment, $GITHUB_OUTPUT and
// $GITHUB_STEP_SUMMARY as files, the entry (src/action/run.ts) running the built CLI against a
// real `contentlib serve`. Checked: the outputs, the job summary, the log's workflow commands and
// the exit status, for a folder published, a refused plan, a missing key, and paths that match
// nothing; and action.yml passes every input it declares on to the entry.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run.js';
import { SummarySchema } from '../../src/cli/output/upload-ndjson.js';
import { apiClient } from '../support/cli.js';
import { BIN, FIXTURES, ROOT } from '../support/paths.js';
import { type RemoteLibrary, startServedLibrary } from '../support/remote-library.js';

let lib: RemoteLibrary;
beforeAll(async () => (lib = await startServedLibrary('ci')));
afterAll(async () => lib?.dispose());

interface Runner {
  workspace: string;
  exitCode: number;
  log: string[];
  outputs: Record<string, string>;
  summary: string;
}

/** Reads $GITHUB_OUTPUT's heredoc entries (name<<DELIM … DELIM). */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

/** One step of a simulated runner: a fresh workspace (with `files` copied in), its own home, the given inputs. */
async function step(inputs: Record<string, string>, files: Record<string, string | Buffer> = {}): Promise<Runner> {
  const root = await mkdtemp(join(tmpdir(), 'contentlib-action-'));
  const workspace = join(root, 'workspace');
  for (const [to, from] of Object.entries(files)) {
    await mkdir(join(workspace, to, '..'), { recursive: true });
    if (typeof from === 'string') await cp(join(FIXTURES, from), join(workspace, to), { recursive: true });
    else await writeFile(join(workspace, to), from);
  }
  await mkdir(workspace, { recursive: true });
  const output = join(root, 'output');
  const summaryFile = join(root, 'summary.md');
  await writeFile(output, '');
  await writeFile(summaryFile, '');
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: root,
    CONTENTLIB_HOME: join(root, 'home'),
    CONTENTLIB_RETRY_BASE_MS: '0',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  const log: string[] = [];
  try {
    const exitCode = await runAction(env, { cli: ['node', BIN], log: (l) => log.push(l), stderr: () => {} });
    return {
      workspace,
      exitCode,
      log,
      outputs: parseOutputs(await readFile(output, 'utf8')),
      summary: await readFile(summaryFile, 'utf8'),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('the GitHub Action, with a simulated runner', () => {
  it('publishes a folder: ids and the summary as outputs, a job summary table, the key masked, exit 0', async () => {
    const r = await step(
      { paths: 'demo', 'base-url': lib.url, 'api-key': lib.key, concurrency: '2' },
      { demo: 'demo' },
    );
    expect(r.exitCode).toBe(0);
    expect(r.log[0]).toBe(`::add-mask::${lib.key}`);
    const summary = SummarySchema.parse(JSON.parse(r.outputs.summary!));
    expect(summary).toMatchObject({ exitCode: 0, created: 3, refused: false, target: { baseUrl: lib.url } });
    const ids = JSON.parse(r.outputs['item-ids']!) as string[];
    expect(ids).toHaveLength(3);
    expect(JSON.parse(r.outputs['created-ids']!)).toEqual(ids);
    expect(JSON.parse(r.outputs['appended-ids']!)).toEqual([]);
    expect(r.outputs['exit-code']).toBe('0');
    expect(r.summary).toContain('## contentlib upload');
    expect(r.summary).toContain(`3 created to ${lib.url}`);
    expect(r.summary).toContain('| Title | Type | Id | Outcome |');
    for (const id of ids) expect(r.summary).toContain(`\`${id}\``);
    expect(r.summary).toMatch(/\| Demo carousel \| carousel \| `[0-9a-f-]{36}` \| created \|/);
    expect(r.summary).toContain('Intro to the demo library');
    // The key is nowhere but in the mask command.
    expect([...r.log.slice(1), r.summary, JSON.stringify(r.outputs)].join('\n')).not.toContain(lib.key);
  });

  it('a refused plan: exit 2, nothing sent, the problems in the job summary and as annotations', async () => {
    const r = await step(
      { paths: 'clips\nset', 'base-url': lib.url, 'api-key': lib.key, strict: 'true' },
      {
        'clips/empty.mp4': Buffer.alloc(0),
        'clips/ok.mp4': 'video/clip-5s.mp4',
        'set/1.jpg': 'image/photo.jpg',
        'set/2.jpg': 'image/photo.jpg',
        'set/3.heic': 'other/unsupported/photo.heic',
      },
    );
    expect(r.exitCode).toBe(2);
    const summary = SummarySchema.parse(JSON.parse(r.outputs.summary!));
    expect(summary).toMatchObject({ refused: true, created: 0, problems: 2 });
    expect(JSON.parse(r.outputs['item-ids']!)).toEqual([]);
    expect(r.summary).toContain('Nothing was uploaded: the upload was refused (exit 2).');
    expect(r.summary).toContain('### Problems');
    expect(r.summary).toContain('clips/empty.mp4: the file is empty (0 bytes)');
    expect(r.summary).toContain('set/3.heic: would be skipped');
    expect(r.summary).toContain('### Skipped files');
    expect(r.log.filter((l) => l.startsWith('::error title=contentlib upload::'))).toHaveLength(2);
  });

  it('a missing key (the secret is not set): exit 4, said in the job summary, nothing sent', async () => {
    const r = await step({ paths: 'demo', 'base-url': lib.url, 'api-key': '' }, { demo: 'demo' });
    expect(r.exitCode).toBe(4);
    expect(r.log.some((l) => l.startsWith('::add-mask::'))).toBe(false);
    expect(r.log).toContainEqual(
      expect.stringMatching(/^::error title=contentlib upload::A base URL .* without an API key/),
    );
    expect(SummarySchema.parse(JSON.parse(r.outputs.summary!))).toMatchObject({ refused: true, exitCode: 4 });
    expect(r.outputs['exit-code']).toBe('4');
    expect(r.summary).toContain('without an API key');
  });

  it('if-no-files-found: warn succeeds with a warning, error fails, ignore says nothing', async () => {
    const inputs = { paths: 'release/*.mp4', 'base-url': lib.url, 'api-key': lib.key };
    const warn = await step(inputs);
    expect(warn.exitCode).toBe(0);
    expect(warn.log).toContainEqual(
      expect.stringMatching(/^::warning::No files were found with the given paths: release\/\*\.mp4/),
    );
    expect(warn.summary).toContain('No files were found');
    const error = await step({ ...inputs, 'if-no-files-found': 'error' });
    expect(error.exitCode).toBe(2);
    expect(error.log.some((l) => l.startsWith('::error'))).toBe(true);
    const ignore = await step({ ...inputs, 'if-no-files-found': 'ignore' });
    expect(ignore.exitCode).toBe(0);
    expect(ignore.log.some((l) => l.startsWith('::warning') || l.startsWith('::error'))).toBe(false);
    // One path missing among paths that exist is a refused plan, whatever the policy.
    const some = await step({ ...inputs, paths: 'release/*.mp4\nok.mp4' }, { 'ok.mp4': 'video/clip-5s.mp4' });
    expect(some.exitCode).toBe(2);
    const bad = await step({ ...inputs, 'if-no-files-found': 'maybe' });
    expect(bad.exitCode).toBe(2);
    expect(bad.summary).toContain('if-no-files-found must be warn, error or ignore');
  });

  it('extra flags reach the CLI: --skip-invalid uploads the rest and exits 3', async () => {
    const r = await step(
      { paths: 'clips', 'base-url': lib.url, 'api-key': lib.key, flags: '--skip-invalid --status "scheduled"' },
      { 'clips/empty.mp4': Buffer.alloc(0), 'clips/ok.mp4': 'video/clip-5s.mp4' },
    );
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.outputs['created-ids']!)).toHaveLength(1);
    expect(r.summary).toContain('### Left out (--skip-invalid)');
    expect(r.summary).toContain('1 created');
  });
});

describe('the GitHub Action on a re-run: the library’s word wins', () => {
  it('a fresh runner keeps an edit made in the library and says what differs; update-metadata applies it', async () => {
    const files = {
      // Bytes no other test of this file uploads (clip-5s.mp4 is the other tests').
      'film/launch.mov': 'video/clip-5s.mov',
      'film/launch.mov.json': Buffer.from(JSON.stringify({ title: 'Launch film' })),
    };
    const inputs = { paths: 'film', 'base-url': lib.url, 'api-key': lib.key, flags: '--status scheduled' };
    const first = await step(inputs, files);
    expect(first.exitCode).toBe(0);
    const [id] = JSON.parse(first.outputs['created-ids']!) as string[];
    const support = apiClient(lib.url, lib.key);
    try {
      await support.patch(id!, { title: 'Launch film (final cut)', status: 'published' });
      const entries = (await support.audit({ itemId: id!, limit: 100 })).entries;

      const rerun = await step(inputs, files);
      expect(rerun.exitCode).toBe(0);
      expect(JSON.parse(rerun.outputs['differing-ids']!)).toEqual([id]);
      expect(JSON.parse(rerun.outputs['updated-ids']!)).toEqual([]);
      expect(rerun.summary).toContain('1 differing from the library (not changed)');
      expect(rerun.summary).toContain(
        '| skipped: differs from the library: title, status; not changed (update-metadata: true applies them) |',
      );
      expect((await support.get(id!)).item).toMatchObject({ title: 'Launch film (final cut)', status: 'published' });
      expect((await support.audit({ itemId: id!, limit: 100 })).entries).toEqual(entries);

      const update = await step({ ...inputs, 'update-metadata': 'true' }, files);
      expect(update.exitCode).toBe(0);
      expect(JSON.parse(update.outputs['updated-ids']!)).toEqual([id]);
      expect(update.summary).toContain('| skipped: updated: title, status |');
      expect((await support.get(id!)).item).toMatchObject({ title: 'Launch film', status: 'scheduled' });
      expect((await support.audit({ itemId: id!, limit: 100 })).entries).toHaveLength(entries.length + 1);
    } finally {
      await support.close();
    }
  });
});

describe('action.yml', () => {
  it('passes every input it declares to the entry, and declares every output the entry writes', async () => {
    const yml = await readFile(join(ROOT, 'action.yml'), 'utf8');
    const block = (name: string) => yml.split(`\n${name}:\n`)[1]!.split(/\n\S/)[0]!;
    const inputs = [...block('inputs').matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]!);
    expect(inputs).toEqual([
      'paths',
      'manifest',
      'base-url',
      'api-key',
      'type',
      'strict',
      'update-metadata',
      'concurrency',
      'flags',
      'if-no-files-found',
    ]);
    for (const name of inputs)
      expect(yml).toContain(`INPUT_${name.toUpperCase().replace(/-/g, '_')}: \${{ inputs.${name} }}`);
    const outputs = [...block('outputs').matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]!);
    expect(outputs).toEqual([
      'item-ids',
      'created-ids',
      'appended-ids',
      'updated-ids',
      'differing-ids',
      'summary',
      'exit-code',
    ]);
    for (const name of outputs) expect(yml).toContain(`value: \${{ steps.upload.outputs.${name} }}`);
    expect(yml).toContain('run: node "$GITHUB_ACTION_PATH/dist/action/main.cjs"');
  });
});
