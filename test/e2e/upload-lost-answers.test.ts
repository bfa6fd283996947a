// Exactly once when answers are lost: the built CLI talks to a real `contentlib serve` through a
// proxy that lets every request through and loses most of complete's answers (and some of
// presign's). Run 1 fails some files after all their tries; its re-run completes the keys it left
// unconfirmed instead of presigning new ones. Together they leave exactly one item per video and
// per folder, each carousel exactly its folder's images, in order. A key revoked mid-run stops
// the run at once with exit 4, in every output mode.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, listApiKeys, revokeApiKey } from '../../src/server/admin.js';
import type { FaultProxy } from '../support/fault-proxy.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { libraryItems } from '../support/library-items.js';
import { albumsAndClips } from '../support/tree.js';
import type { ServeProcess } from '../support/serve-process.js';
import { BIN, ROOT } from '../support/paths.js';
import { childEnv, startServe } from '../support/serve-process.js';

let dir: string;
let server: ServeProcess | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.stop();
  proxy = undefined;
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

interface Event {
  type: string;
  step?: string;
  code?: string;
  message?: string;
  file?: { name: string };
}

function events(stdout: string): Event[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
}

describe('upload through a proxy that loses answers', () => {
  it('a run and its re-run leave exactly one item per video and per folder', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-lost-'));
    const dataDir = join(dir, 'server');
    server = await startServe(dataDir, join(dir, 'serve-home'));
    const { key } = await createApiKey(dataDir, 'acme');
    const input = join(dir, 'in');
    await albumsAndClips(input, 4, 3);

    // Per complete key, in order of first sight: every other key loses its first 5 answers (all
    // the tries of run 1), the rest their first 2 (run 1 gets through on its third try). Keys
    // first seen in run 2 lose their first answer. Every third presign loses its answer.
    let phase = 1;
    const order = new Map<string, { n: number; phase: number; answers: number }>();
    let presigns = 0;
    proxy = await startFaultProxy(server.url, (req) => {
      if (req.path === '/api/v1/upload/presign') return ++presigns % 3 === 0;
      if (req.path !== '/api/v1/upload/complete') return false;
      const k = (req.json as { key: string }).key;
      const seen = order.get(k) ?? { n: order.size, phase, answers: 0 };
      order.set(k, seen);
      seen.answers++;
      if (seen.phase === 2) return seen.answers <= 1;
      if (phase === 2) return false;
      return seen.answers <= (seen.n % 2 === 0 ? 5 : 2);
    });
    const env = childEnv({
      CONTENTLIB_HOME: join(dir, 'home'),
      CONTENTLIB_BASE_URL: proxy.url,
      CONTENTLIB_API_KEY: key,
      CONTENTLIB_RETRY_BASE_MS: '0',
    });

    const first = await execa('node', [BIN, '--json', 'upload', input], { cwd: ROOT, env, reject: false });
    expect([1, 3], first.stderr).toContain(first.exitCode);
    const e1 = events(first.stdout);
    // Every retry is an event naming its step; every failure names its step.
    expect(e1.filter((e) => e.type === 'retrying' && e.step === 'complete').length).toBeGreaterThan(10);
    expect(e1.filter((e) => e.type === 'retrying' && e.step === 'presign').length).toBeGreaterThan(0);
    const failed = e1.filter((e) => e.type === 'failed' && e.file);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      expect(f.step).toBe('complete');
      expect(f.message).toMatch(/^complete failed: /);
    }

    phase = 2;
    const second = await execa('node', [BIN, '--json', 'upload', input], { cwd: ROOT, env, reject: false });
    expect(second.exitCode, second.stderr + second.stdout.slice(-2000)).toBe(0);
    const completes = proxy.stats.seen.get('POST /api/v1/upload/complete') ?? 0;
    const lost = proxy.stats.lost.get('POST /api/v1/upload/complete') ?? 0;
    expect(lost / completes).toBeGreaterThan(0.5);

    const items = await libraryItems(server.url, key);
    const carousels = items.filter((i) => i.type === 'carousel');
    const videos = items.filter((i) => i.type === 'shortform');
    expect(videos.map((v) => v.title)).toEqual(['clip-0', 'clip-1', 'clip-2']);
    expect(carousels).toHaveLength(4);
    for (const c of carousels) expect(c.files).toEqual(['1.jpg', '2.png', '3.webp']);

    // And a third run has nothing left to do.
    const third = await execa('node', [BIN, 'upload', input], { cwd: ROOT, env, reject: false });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).toContain('Nothing new to upload: 7 items (15 files) already uploaded');
  });
});

describe('a key revoked mid-run', () => {
  for (const mode of ['json', 'plain'] as const) {
    it(`stops the run at once with exit 4 (${mode})`, { timeout: 120_000 }, async () => {
      dir = await mkdtemp(join(tmpdir(), 'contentlib-revoked-'));
      const dataDir = join(dir, 'server');
      server = await startServe(dataDir, join(dir, 'serve-home'));
      const { key, id } = await createApiKey(dataDir, 'acme');
      const input = join(dir, 'in');
      await albumsAndClips(input, 0, 12);
      let completes = 0;
      // The key is revoked when the third complete passes the proxy, before its answer goes back.
      proxy = await startFaultProxy(server.url, (req) => {
        if (req.path === '/api/v1/upload/complete' && ++completes === 3) void revokeApiKey(dataDir, id);
        return false;
      });
      const env = childEnv({
        CONTENTLIB_HOME: join(dir, 'home'),
        CONTENTLIB_BASE_URL: proxy.url,
        CONTENTLIB_API_KEY: key,
        CONTENTLIB_RETRY_BASE_MS: '0',
      });
      const args = [...(mode === 'json' ? ['--json'] : []), 'upload', input, '--concurrency', '1'];
      const r = await execa('node', [BIN, ...args], { cwd: ROOT, env, reject: false });
      expect(r.exitCode, r.stderr).toBe(4);
      expect((await listApiKeys(dataDir)).find((k) => k.id === id)).toBeDefined();
      // Nothing starts after the first refusal, and not every file was tried.
      const presigns = proxy.stats.seen.get('POST /api/v1/upload/presign') ?? 0;
      expect(presigns).toBeLessThan(12);
      if (mode === 'json') {
        const ev = events(r.stdout);
        const refused = ev.findIndex((e) => e.type === 'failed' && e.code === 'unauthorized');
        expect(refused).toBeGreaterThan(-1);
        expect(ev.slice(refused).filter((e) => e.type === 'started')).toHaveLength(0);
        const summary = ev.at(-1) as unknown as { type: string; created: number };
        expect(summary).toMatchObject({ type: 'summary' });
      } else {
        expect(r.stderr).toMatch(/failed +clip-\d+\.mp4: (presign|complete) failed: .*\(401 unauthorized[,)]/);
        expect(r.stderr).not.toMatch(/All \d+ items failed/);
        // Only requests that were refused are reported as refused; the PUTs the stop cut short are not.
        expect(r.stderr).not.toMatch(/PUT failed: .*401 unauthorized/);
      }
    });
  }
});
