// upload of large files as parts (issue 28), in-process against a real server on 127.0.0.1
// whose storage is reached through a throttling proxy, so that Ctrl-C lands mid-file: the re-run
// sends only the missing parts and the item is byte-identical; a file changed since starts over;
// --part-concurrency is checked; a service without the extension gets the single PUT as before.
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, readdir, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/sqlite/database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { EXIT } from '../../src/cli/errors.js';
import { type CliResult, cli as runCli } from '../support/cli-in-process.js';
import { onS3 } from '../support/backend.js';
import { sparseVideo } from '../support/library.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type SpecOnlyProxy, startSpecOnlyProxy } from '../support/spec-only-proxy.js';
import { type ThrottleProxy, startThrottleProxy } from '../support/throttle-proxy.js';
import { uploadSummary } from '../support/upload-json.js';

const MIB = 1024 * 1024;
const PART = 8 * MIB;
/** Five parts of 8 MiB, the last one short. */
const SIZE = 4 * PART + 3 * MIB;

let slow: ThrottleProxy;
let server: TestServer;
let key: string;
let home: string;
let work: string;
beforeAll(async () => {
  let url = '';
  // 4 MiB/s per connection: a part takes about 2 s, the file about 6 s with 2 parts at once.
  slow = await startThrottleProxy(() => url, 4 * MIB);
  server = await startTestServer({ clock: 'real', publicUrl: slow.url });
  url = server.url;
  key = await server.key('parts');
  home = await mkdtemp(join(tmpdir(), 'contentlib-parts-home-'));
  work = await mkdtemp(join(tmpdir(), 'contentlib-parts-work-'));
});
afterAll(async () => {
  await slow?.close();
  await server?.dispose();
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const remote = (url = slow.url) => ({ CONTENTLIB_BASE_URL: url, CONTENTLIB_API_KEY: key });
const cli = (args: string[], o: { env?: Record<string, string>; signal?: AbortSignal } = {}) =>
  runCli(home, args, { cwd: work, env: o.env ?? remote(), ...(o.signal ? { signal: o.signal } : {}) });

/** A valid video of `size` bytes whose bytes are its own (random bytes inside its mdat). */
async function uniqueVideo(name: string, size = SIZE): Promise<string> {
  const path = await sparseVideo(join(work, name), size);
  await scribble(path);
  return path;
}

/** Changes bytes in the middle of the file's mdat (its size stays; its mtime and SHA-256 change). */
async function scribble(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    await handle.write(randomBytes(4096), 0, 4096, Math.floor(size / 2));
  } finally {
    await handle.close();
  }
}

/** The parts this machine's journal holds (the CLI writes them as each is stored). */
async function journalParts(): Promise<Array<{ key: string; part_number: number }>> {
  const dir = join(home, 'state', 'journals');
  const dbs = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.db'));
  const rows: Array<{ key: string; part_number: number }> = [];
  for (const name of dbs) {
    const db = new Database(join(dir, name), { readOnly: true });
    try {
      const has = db.prepare("SELECT name FROM sqlite_master WHERE name = 'parts'").get();
      if (has) rows.push(...(db.prepare('SELECT key, part_number FROM parts').all() as typeof rows));
    } finally {
      db.close();
    }
  }
  return rows;
}

/** Ctrl-C once the journal holds `parts` parts. */
async function interruptAfterParts(args: string[], parts: number): Promise<CliResult> {
  const controller = new AbortController();
  const running = cli(args, { signal: controller.signal });
  const deadline = Date.now() + 60_000;
  while ((await journalParts()).length < parts) {
    if (Date.now() > deadline) throw new Error(`the journal did not hold ${parts} parts within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  controller.abort(new Error('SIGINT'));
  return running;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The stored bytes of the one item made from `path`, as the library serves them. */
async function storedBytes(itemId: string): Promise<Buffer> {
  const api = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
  try {
    const got = await api.get(itemId);
    return Buffer.from(await (await fetch(got.item.fileUrl!)).arrayBuffer());
  } finally {
    await api.close();
  }
}

describe.skipIf(onS3)('a large file as parts, interrupted and run again', () => {
  it('the re-run sends only the missing parts and the item is the exact bytes, once', async () => {
    const path = await uniqueVideo('resume.mp4');
    const args = ['upload', '--json', '--part-concurrency', '2', 'resume.mp4'];
    const first = await interruptAfterParts(args, 2);
    expect(first.exitCode, first.stderr).toBe(EXIT.interrupted);
    const cut = uploadSummary(first);
    expect(cut.interrupted).toBe(true);
    expect(cut.bytesKept).toBeGreaterThanOrEqual(2 * PART);
    expect(cut.bytesSent).toBeGreaterThanOrEqual(cut.bytesKept);

    const again = await cli(args);
    expect(again.exitCode, again.stderr).toBe(0);
    const done = uploadSummary(again);
    expect(done.created).toBe(1);
    expect(done.bytesKept).toBe(0);
    // Only what the service lacked: the file less what the first run kept — or less still, when a
    // part of the 2 in flight was stored just as Ctrl-C cut its answer (the service's list has it).
    expect(done.bytesSent).toBeLessThanOrEqual(SIZE - cut.bytesKept);
    expect(done.bytesSent).toBeGreaterThanOrEqual(SIZE - cut.bytesKept - 2 * PART);
    // Whole parts: some 8 MiB ones, and perhaps the last (3 MiB) one.
    expect(done.bytesSent % PART === 0 || (SIZE - done.bytesSent) % PART === 0).toBe(true);
    // The re-run says where it resumed: what the service held, and only the rest was sent.
    const started = again.stdout
      .split('\n')
      .filter((l) => l.includes('"type":"started"'))
      .map((l) => JSON.parse(l) as { resumedFrom?: number });
    expect(started).toHaveLength(1);
    expect(started[0]!.resumedFrom).toBe(SIZE - done.bytesSent);
    expect(await journalParts()).toEqual([]);
    const itemId = done.items[0]!.id!;
    expect(sha256(await storedBytes(itemId))).toBe(sha256(await readFile(path)));
    // Nothing twice: a third run has nothing to do.
    const third = await cli(['upload', 'resume.mp4']);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).toContain('Nothing new to upload');
  });

  it('the summary after Ctrl-C says what is kept for the next run', async () => {
    await uniqueVideo('said.mp4');
    const first = await interruptAfterParts(['upload', '--part-concurrency', '2', 'said.mp4'], 1);
    expect(first.exitCode, first.stderr).toBe(EXIT.interrupted);
    expect(first.stderr).toMatch(/Kept for the next run: \d+(\.\d+)? MB of large files already stored as parts/);
    expect(first.stderr).not.toMatch(/; 0 B sent/);
    const again = await cli(['upload', 'said.mp4']);
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it('a file changed since starts over, and its old upload is closed', async () => {
    const path = await uniqueVideo('changed.mp4');
    const args = ['upload', '--json', '--part-concurrency', '2', 'changed.mp4'];
    const first = await interruptAfterParts(args, 1);
    expect(first.exitCode, first.stderr).toBe(EXIT.interrupted);
    const [old] = await journalParts();
    await scribble(path);
    const again = await cli(args);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain('changed.mp4 changed since its upload began: starting over');
    const done = uploadSummary(again);
    expect(done.bytesSent).toBeGreaterThanOrEqual(SIZE);
    expect(sha256(await storedBytes(done.items[0]!.id!))).toBe(sha256(await readFile(path)));
    // The old upload was aborted by the CLI (where the service has the abort endpoint).
    const api = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
    try {
      const parts = await api.parts({ key: old!.key, partNumbers: [] }).catch((e: unknown) => e);
      const hasAbort = await api.abortUpload({ key: 'nope' }).then(
        () => true,
        (e: unknown) => !(e instanceof ApiError && e.status === 404 && e.code === 'not_found'),
      );
      if (hasAbort) expect(parts).toBeInstanceOf(ApiError);
    } finally {
      await api.close();
    }
  });

  it('an upload the service no longer knows starts over with a new presign, once', async () => {
    const path = await uniqueVideo('swept.mp4');
    const args = ['upload', '--json', '--part-concurrency', '2', 'swept.mp4'];
    const first = await interruptAfterParts(args, 1);
    expect(first.exitCode, first.stderr).toBe(EXIT.interrupted);
    // The service forgets it: aborted from outside (or, without the endpoint, its URL long expired and swept).
    const [old] = await journalParts();
    const api = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
    try {
      const aborted = await api.abortUpload({ key: old!.key }).then(
        () => true,
        () => false,
      );
      if (!aborted) {
        server.clock.advance(48 * 3600_000);
        await server.sweep();
        server.clock.advance(-48 * 3600_000);
      }
      await expect(api.parts({ key: old!.key, partNumbers: [] })).rejects.toBeInstanceOf(ApiError);
    } finally {
      await api.close();
    }
    const again = await cli(args);
    expect(again.exitCode, again.stderr).toBe(0);
    const done = uploadSummary(again);
    expect(done.bytesSent).toBe(SIZE);
    expect(sha256(await storedBytes(done.items[0]!.id!))).toBe(sha256(await readFile(path)));
  });
});

describe.skipIf(onS3)('parts of several files', () => {
  it('share --part-concurrency: two large files at once never have more parts in flight than it says', async () => {
    const a = await uniqueVideo('shared-a.mp4', 3 * PART);
    const b = await uniqueVideo('shared-b.mp4', 3 * PART - 11);
    slow.resetCount();
    // The API straight to the server: the proxy sees the storage PUTs only.
    const args = ['upload', '--json', '--concurrency', '2', '--part-concurrency', '2', 'shared-a.mp4', 'shared-b.mp4'];
    const r = await cli(args, { env: remote(server.url) });
    expect(r.exitCode, r.stderr).toBe(0);
    const done = uploadSummary(r);
    expect(done.created).toBe(2);
    // Storage connections (each part PUT takes one while it is sent): two, not two per file.
    expect(slow.peakConnections()).toBeLessThanOrEqual(2);
    expect(sha256(await storedBytes(done.items[0]!.id!))).toBe(sha256(await readFile(a)));
    expect(sha256(await storedBytes(done.items[1]!.id!))).toBe(sha256(await readFile(b)));
  });
});

describe('--part-concurrency', () => {
  it.each(['0', '17', 'two', '-1', '2.5'])('refuses %s with what to type', async (value) => {
    const r = await cli(['upload', '--part-concurrency', value, 'x.mp4']);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toContain(`--part-concurrency ${value} is not a whole number from 1 to 16`);
    expect(r.stderr).toContain('For example: --part-concurrency 6');
  });
});

describe('a service without the multipart extension', () => {
  let spec: SpecOnlyProxy | undefined;
  afterAll(async () => spec?.close());

  it.each([
    ['ignores the field', undefined],
    ['refuses the field', 'refused' as const],
  ])('%s: the file goes as one PUT, as before', async (_, multipart) => {
    await spec?.close();
    spec = await startSpecOnlyProxy(server.url, multipart ? { check: 'kept', sha256: 'kept', multipart } : undefined);
    const path = await uniqueVideo(`single-${multipart ?? 'ignored'}.mp4`, 2 * PART + 5);
    const r = await cli(['upload', '--json', `single-${multipart ?? 'ignored'}.mp4`], { env: remote(spec.url) });
    expect(r.exitCode, r.stderr).toBe(0);
    const done = uploadSummary(r);
    expect(done.created).toBe(1);
    expect(done.bytesSent).toBe(2 * PART + 5);
    expect(spec.refused.filter((x) => x.includes('/parts'))).toEqual([]);
    // Asked for parts once; a service refusing the field is asked again without it.
    expect(spec.presigns[0]!.multipart).toBe(true);
    if (multipart === 'refused') expect(spec.presigns[1]!.multipart).toBeUndefined();
    expect(sha256(await storedBytes(done.items[0]!.id!))).toBe(sha256(await readFile(path)));
  });

  it('offers parts but has no parts endpoint: the single PUT of the same presign, and no more asking', async () => {
    await spec?.close();
    spec = await startSpecOnlyProxy(server.url, { check: 'kept', sha256: 'kept', multipart: 'kept', parts: 'missing' });
    const a = await uniqueVideo('no-endpoint-a.mp4', 2 * PART + 5);
    const b = await uniqueVideo('no-endpoint-b.mp4', 2 * PART + 7);
    const r = await cli(['upload', '--json', '--concurrency', '1', 'no-endpoint-a.mp4', 'no-endpoint-b.mp4'], {
      env: remote(spec.url),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const done = uploadSummary(r);
    expect(done.created).toBe(2);
    // Each file's bytes once: the offered parts were never sent, the single PUT was.
    expect(done.bytesSent).toBe(4 * PART + 12);
    // One presign per file; the second file is not asked for parts any more.
    expect(spec.presigns.map((p) => p.multipart)).toEqual([true, undefined]);
    expect(spec.refused).toEqual(['POST /api/v1/upload/parts']);
    // Each file started once, the fallback included.
    const started = r.stdout.split('\n').filter((l) => l.includes('"type":"started"'));
    expect(started).toHaveLength(2);
    expect(sha256(await storedBytes(done.items[0]!.id!))).toBe(sha256(await readFile(a)));
    expect(sha256(await storedBytes(done.items[1]!.id!))).toBe(sha256(await readFile(b)));
  });
});
