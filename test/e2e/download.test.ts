// `contentlib download` as people and scripts run it, with the built binary on the embedded
// library: a carousel into a folder in order, a video to stdout, NDJSON events, and an unknown
// id as a not-found with exit 5.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cli } from '../support/cli.js';
import { BIN, FIXTURES } from '../support/paths.js';

let home: string;
let ids: Array<{ id: string; type: string; title: string }>;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-download-e2e-'));
  const up = await cli(home, ['upload', join(FIXTURES, 'demo')]);
  expect(up.exitCode, up.stderr).toBe(0);
  ids = JSON.parse((await cli(home, ['ls', '--json', 'id,type,title'])).stdout);
}, 60_000);
afterAll(async () => rm(home, { recursive: true, force: true }));

const idOf = (title: string) => ids.find((i) => i.title === title)!.id;

describe('contentlib download', () => {
  it('writes a carousel as a folder of its images in order, and says so on stderr', async () => {
    const out = join(home, 'out');
    const r = await cli(home, ['download', idOf('Demo carousel'), '-o', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await readdir(join(out, 'Demo carousel'))).sort()).toEqual(['01-1.jpg', '02-2.png', '03-10.webp']);
    expect(await readFile(join(out, 'Demo carousel', '03-10.webp'))).toEqual(
      await readFile(join(FIXTURES, 'demo/carousel/10.webp')),
    );
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^done {5}.*Demo carousel\/01-1\.jpg, 1\.5 KB in/m);
    expect(r.stderr).toContain('3 files downloaded;');
  });

  it('-O - writes a video to stdout, byte for byte', async () => {
    const r = await execa('node', [BIN, 'download', idOf('teaser'), '-O', '-'], {
      env: cleanEnv(home),
      extendEnv: false,
      encoding: 'buffer',
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    expect(Buffer.from(r.stdout).equals(await readFile(join(FIXTURES, 'demo/teaser.mov')))).toBe(true);
  });

  it('--json prints NDJSON events and a summary', async () => {
    const out = join(home, 'json');
    const r = await cli(home, ['download', idOf('Intro to the demo library'), '-o', out, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout.split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(['started', 'downloaded', 'summary']);
    expect(events[1]).toMatchObject({ type: 'downloaded', file: { path: join(out, 'intro.mp4'), role: 'file' } });
  });

  it('an id that is not in this library: not found, exit 5', async () => {
    const r = await cli(home, ['download', '00000000-0000-4000-8000-000000000000']);
    expect(r.exitCode).toBe(5);
    // Said as every command says it: the embedded library named, no brands, no API paths.
    expect(r.stderr).toContain('Error: Item 00000000-0000-4000-8000-000000000000 is not in the embedded library in ');
    expect(r.stderr).not.toMatch(/brand|\/api\//);
    expect(r.stderr).toContain('contentlib ls');
  });
});
