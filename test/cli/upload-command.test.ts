// The upload command: flags → metadata, outcome → exit code, and runUpload in-process against a
// real server on 127.0.0.1 with a journal in a temp folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { type UploadDeps, metadataFromFlags, outcomeError, runUpload } from '../../src/cli/commands/upload.js';
import { EXIT, RejectedFilesError, UsageError } from '../../src/cli/errors.js';
import { createProgress } from '../../src/cli/output/progress.js';
import type { ItemOutcome, UploadSummary } from '../../src/upload/send/events.js';
import { openJournal } from '../../src/upload/send/journal.js';
import { bufferIO } from '../support/io.js';
import { FIXTURES } from '../support/paths.js';
import { type TestServer, startTestServer } from '../support/server.js';

const item = (status: ItemOutcome['status'], itemId?: string): ItemOutcome => ({
  index: 0,
  type: 'shortform',
  source: 'a.mp4',
  status,
  filesCompleted: 0,
  filesSkipped: 0,
  filesTotal: 1,
  ...(itemId ? { itemId } : {}),
});
const rejected: ItemOutcome = { ...item('failed'), keyRejected: true };
const summary = (items: ItemOutcome[], interrupted = false): UploadSummary => ({
  items,
  interrupted,
  bytesSent: 0,
  ms: 0,
});

describe('upload exit codes', () => {
  it.each([
    [[item('created', 'a'), item('skipped', 'b')], false, undefined],
    [[item('created', 'a'), item('failed')], false, EXIT.partial],
    [[item('partial', 'a')], false, EXIT.partial],
    [[item('failed'), item('failed')], false, EXIT.failure],
    [[item('created', 'a'), item('interrupted')], true, EXIT.interrupted],
    [[rejected, rejected], false, EXIT.auth],
    [[rejected, item('failed')], false, EXIT.failure],
    [[item('created', 'a'), rejected], false, EXIT.partial],
  ] as const)('%j interrupted=%s → %s', (items, interrupted, code) => {
    expect(outcomeError(summary([...items], interrupted), 'https://content.example.com')?.exitCode).toBe(code);
  });

  it('a refused key says to log in again, naming the service', () => {
    const err = outcomeError(summary([rejected]), 'https://content.example.com/');
    expect(err?.message).toBe('https://content.example.com rejected the API key (unknown or revoked key).');
    expect(err?.hint).toContain('contentlib login --base-url https://content.example.com');
  });
});

describe('metadata flags', () => {
  it('parses hashtags and --platform the way edit does', async () => {
    const m = await metadataFromFlags({
      concurrency: 4,
      title: 'T',
      hashtags: '#a, b b',
      platform: ['youtube.visibility=private', 'tiktok.duet=false', 'youtube.tags=["x"]'],
    });
    expect(m).toEqual({
      title: 'T',
      hashtags: ['a', 'b'],
      platformSettings: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
    });
  });

  it('rejects a malformed --platform before anything else happens', async () => {
    await expect(metadataFromFlags({ concurrency: 4, platform: ['visibility'] })).rejects.toBeInstanceOf(UsageError);
  });
});

describe('runUpload', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer({ clock: 'real' });
    dir = await mkdtemp(join(tmpdir(), 'contentlib-upload-command-'));
  });
  afterAll(async () => {
    await server.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  /** runUpload's deps over a buffer IO; `opened` counts the times the library was opened. */
  async function deps(name: string) {
    const io = bufferIO();
    const client = createApiClient({ baseUrl: server.url, apiKey: await server.key(name), retry: NO_WAIT_RETRY });
    const journal = await openJournal(join(dir, name), 'test-target');
    const opened = { count: 0 };
    const d: UploadDeps = {
      io,
      open: async () => {
        opened.count++;
        return { api: client, journal, progress: await createProgress('json', io) };
      },
      now: () => new Date(),
      sleep: async () => {},
      signal: new AbortController().signal,
      cwd: FIXTURES,
      policy: NO_WAIT_RETRY,
    };
    return { d, io, client, journal, opened };
  }

  it('uploads, returns the summary, and a re-run skips what is done', async () => {
    const { d, io, client, journal, opened } = await deps('first');
    const result = await runUpload({ paths: ['demo'], concurrency: 2 }, d);
    if (result.kind !== 'uploaded') throw new Error(result.kind);
    expect([...result.summary.items].map((i) => i.status)).toEqual(['created', 'created', 'created']);
    expect(outcomeError(result.summary, server.url)).toBeUndefined();
    expect((await client.list({ limit: 10 })).items).toHaveLength(3);
    const lines = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.at(-1)).toMatchObject({ type: 'summary' });
    const again = await runUpload({ paths: ['demo'], concurrency: 2 }, d);
    if (again.kind !== 'uploaded') throw new Error(again.kind);
    expect([...again.summary.items].map((i) => i.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(opened.count).toBe(2);
    journal.close();
    await client.close();
  });

  it('a refused plan and --dry-run never open the library', async () => {
    const { d, io, client, journal, opened } = await deps('second');
    const refused = await runUpload({ paths: ['demo', 'nope.mp4'], concurrency: 4 }, d);
    if (refused.kind !== 'refused') throw new Error(refused.kind);
    expect(refused.error).toBeInstanceOf(RejectedFilesError);
    const dry = await runUpload({ paths: ['demo'], concurrency: 4, dryRun: true }, d);
    expect(dry).toMatchObject({ kind: 'dry-run' });
    expect(io.out()).toContain('teaser');
    await expect(runUpload({ paths: [], concurrency: 4 }, d)).rejects.toBeInstanceOf(UsageError);
    expect(opened.count).toBe(0);
    expect((await client.list({ limit: 10 })).items).toHaveLength(0);
    journal.close();
    await client.close();
  });
});
