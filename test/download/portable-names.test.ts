// Names that `download` and `export` write can be copied as they are to Windows, macOS and Linux
// (issue 36): device names, trailing dots and spaces, the characters Windows refuses, and names
// that differ only in case. One rule (src/download/names.ts, docs/cli.md "Names on disk"); the
// export's manifest keeps each original name, and uploading the export tells the library it again.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { runDownload } from '../../src/cli/commands/download.js';
import { foldName, portableNames, safeName } from '../../src/download/names.js';
import { buildPlan } from '../../src/upload/plan/plan.js';
import { quietExport } from '../support/export.js';
import { type TestServer, mp4, serverWithKey, uploadItem } from '../support/server.js';

/** What Windows refuses in a name (Microsoft's "Naming Files, Paths, and Namespaces"); Linux and macOS take all of it. */
function windowsRefuses(name: string): boolean {
  return (
    // eslint-disable-next-line no-control-regex -- control characters are among what Windows refuses
    /[<>:"/\\|?*\u0000-\u001f]/.test(name) ||
    /[. ]$/.test(name) ||
    /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(name)
  );
}

describe('safeName: the portable rule, one row per case', () => {
  it.each([
    ['CON.mp4', '_CON.mp4'],
    ['nul.mp4', '_nul.mp4'],
    ['COM1.mp4', '_COM1.mp4'],
    ['lpt¹.mov', '_lpt¹.mov'],
    ['aux', '_aux'],
    ['con.tar.mp4', '_con.tar.mp4'],
    ['console.mp4', 'console.mp4'],
    ['COM10.mp4', 'COM10.mp4'],
    ['evil.mp4.', 'evil.mp4'],
    ['evil.mp4 . ', 'evil.mp4'],
    ['say "hi".mp4', 'say ＂hi＂.mp4'],
    ['a<b>c:d|e?f*.mp4', 'a＜b＞c：d｜e？f＊.mp4'],
    ['ok name (1).mp4', 'ok name (1).mp4'],
    ['.hidden.mp4', 'hidden.mp4'],
  ])('%j → %j', (name, out) => {
    expect(safeName(name)).toBe(out);
    expect(windowsRefuses(safeName(name))).toBe(false);
  });

  it('names that differ only in case: the first keeps its name, the later ones are numbered', () => {
    expect(portableNames(['Clip.mp4', 'clip.mp4', 'CLIP.mp4', 'other.mp4'])).toEqual([
      'Clip.mp4',
      'clip (2).mp4',
      'CLIP (3).mp4',
      'other.mp4',
    ]);
    // macOS also folds the two ways of writing é.
    expect(portableNames(['caf\u00e9.mp4', 'cafe\u0301.mp4'])).toEqual(['caf\u00e9.mp4', 'cafe\u0301 (2).mp4']);
  });
});

describe('download and export write portable names, and the round trip restores the originals', () => {
  let s: TestServer;
  let key: string;
  let client: ApiClient;
  let root: string;
  const names = ['CON.mp4', 'nul.mp4', 'COM1.mp4', 'say "hi".mp4', 'Clip.mp4', 'clip.mp4'];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ s, key } = await serverWithKey({ clock: 'real' }));
    client = createApiClient({ baseUrl: s.url, apiKey: key, retry: NO_WAIT_RETRY });
    root = await mkdtemp(join(tmpdir(), 'contentlib-portable-'));
    for (const [i, name] of names.entries())
      ids[name] = (await uploadItem(s, key, { fileName: name, contentType: 'video/mp4', bytes: mp4(5 + i) })).item.id;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await s?.dispose();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('download into one folder: every name portable, no two equal but for case', async () => {
    const dir = join(root, 'download');
    const result = await runDownload(
      { ids: names.map((n) => ids[n]!), dir, concurrency: 2 },
      {
        api: client,
        emit: () => {},
        stdout: new PassThrough(),
        now: () => new Date(),
        sleep: async () => {},
        policy: NO_WAIT_RETRY,
        signal: new AbortController().signal,
        cwd: dir,
      },
    );
    expect(result.items.flatMap((i) => i.files.map((f) => f.outcome))).toEqual(names.map(() => 'downloaded'));
    const onDisk = (await readdir(dir)).sort();
    expect(onDisk).toEqual(['_CON.mp4', '_nul.mp4', '_COM1.mp4', 'say ＂hi＂.mp4', 'Clip.mp4', 'clip (2).mp4'].sort());
    for (const n of onDisk) expect(windowsRefuses(n), n).toBe(false);
    expect(new Set(onDisk.map(foldName)).size).toBe(onDisk.length);
  });

  it('export writes portable names and keeps the originals; upload of the export tells the library them again', async () => {
    const dir = join(root, 'export');
    await quietExport(client, s.url, dir);
    for (const name of names) {
      const files = await readdir(join(dir, ids[name]!));
      const video = files.find((f) => f.endsWith('.mp4'))!;
      expect(video, name).toBe(safeName(name));
      expect(windowsRefuses(video)).toBe(false);
    }
    const manifest = JSON.parse(await readFile(join(dir, 'contentlib.json'), 'utf8')) as {
      items: Array<{ files: Array<string | { path: string; fileName: string }>; original: { id: string } }>;
    };
    const fileNameOf = new Map(
      manifest.items.map((i) => {
        const f = i.files[0]!;
        return [i.original.id, typeof f === 'string' ? undefined : f.fileName];
      }),
    );
    expect(fileNameOf.get(ids['CON.mp4']!)).toBe('CON.mp4');
    expect(fileNameOf.get(ids['say "hi".mp4']!)).toBe('say "hi".mp4');
    // Upload reads the export back with the library's names, not the ones on disk.
    const plan = await buildPlan([dir], {}, { cwd: root });
    expect(plan.problems).toEqual([]);
    const planned = plan.items.flatMap((i) => i.files.map((f) => f.name)).sort();
    expect(planned).toEqual([...names].sort());
  });
});
