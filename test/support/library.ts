// Helpers for the engine tests: a real embedded server on 127.0.0.1 (its clock can be moved), a
// real API client without retry waits, a journal in a temp state dir, and an event collector.
import { copyFile, mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import type { CreateKeyOptions, CreatedKey } from '../../src/server/admin.js';
import type { EngineDeps, EnginePlan } from '../../src/upload/send/engine.js';
import { runPlan } from '../../src/upload/send/engine.js';
import type { UploadEvent, UploadSummary } from '../../src/upload/send/events.js';
import type { Journal } from '../../src/upload/send/journal.js';
import { openJournal } from '../../src/upload/send/journal.js';
import type { PlanOptions } from '../../src/upload/plan/plan.js';
import { buildPlan, formatProblem, readyItems } from '../../src/upload/plan/plan.js';
import { FIXTURES } from './paths.js';
import { startFlipProxy } from './flip-proxy.js';
import { startPutDroppingProxy } from './put-dropping-proxy.js';
import { startThrottleProxy } from './throttle-proxy.js';
import { type TestServerOptions, startTestServer } from './server.js';

export interface Library {
  dir: string;
  url: string;
  /** The API key the client uses (a client of one's own, e.g. through a proxy, takes it too). */
  key: string;
  client: ApiClient;
  /** The server's clock (real time unless advanced). */
  clock: { advance(ms: number): void };
  /** Runs the server's sweeper once now. */
  sweep(): Promise<unknown>;
  journal(): Promise<Journal>;
  upload(
    plan: EnginePlan,
    overrides?: Partial<EngineDeps>,
    onEvent?: (e: UploadEvent) => void,
  ): Promise<{ summary: UploadSummary; events: UploadEvent[] }>;
  /** Every item in the library, oldest first, with its files. */
  items(): Promise<
    Array<{ id: string; type: string; title: string; durationSeconds?: number | null; files: string[] }>
  >;
  /** Another key of the library's brand (e.g. one with fewer scopes). */
  makeKey(o: CreateKeyOptions): Promise<CreatedKey>;
  dispose(): Promise<void>;
}

export interface LibraryOptions extends TestServerOptions {
  /** The first `count` storage PUT bodies reaching `afterBytes` lose their connection (test/support/put-dropping-proxy.ts). */
  dropPuts?: { afterBytes: number; count: number };
  /** The first `count` storage PUT bodies have their byte at `at` flipped (test/support/flip-proxy.ts). */
  flipPuts?: { at: number; count: number };
  /** Storage requests go through a link of this many bytes/s per connection (test/support/throttle-proxy.ts). */
  throttle?: number;
}

export async function startLibrary(opts: LibraryOptions = {}): Promise<Library> {
  const { dropPuts, flipPuts, throttle, ...serverOpts } = opts;
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-engine-'));
  const dataDir = join(dir, 'data');
  await mkdir(dataDir);
  let upstream = '';
  const proxy = dropPuts
    ? await startPutDroppingProxy(() => upstream, dropPuts)
    : flipPuts
      ? await startFlipProxy(() => upstream, flipPuts)
      : throttle
        ? await startThrottleProxy(() => upstream, throttle)
        : undefined;
  const server = await startTestServer({
    dataDir,
    clock: 'real',
    onInternalError: (e) => console.error(e),
    ...(proxy ? { publicUrl: proxy.url } : {}),
    ...serverOpts,
  });
  upstream = server.url;
  const key = await server.key();
  const client = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
  let journal: Journal | undefined;
  const lib: Library = {
    dir,
    url: server.url,
    key,
    client,
    clock: server.clock,
    sweep: () => server.sweep(),
    journal: async () => (journal ??= await openJournal(join(dir, 'state'), 'test-target')),
    async upload(plan, overrides = {}, onEvent) {
      const events: UploadEvent[] = [];
      const controller = new AbortController();
      const summary = await runPlan(
        plan,
        {
          api: client,
          journal: await lib.journal(),
          concurrency: 4,
          force: false,
          signal: controller.signal,
          now: () => new Date(),
          sleep: async () => {},
          policy: NO_WAIT_RETRY,
          ...overrides,
        },
        (e) => {
          events.push(e);
          onEvent?.(e);
        },
      );
      return { summary, events };
    },
    async items() {
      const list = await client.list({ limit: 100 });
      const out = [];
      for (const it of [...list.items].reverse()) {
        const { item, files } = await client.get(it.id);
        out.push({
          id: item.id,
          type: item.type,
          title: item.title,
          durationSeconds: item.durationSeconds,
          files: files.map((f) => f.fileName ?? f.fileKey.split('/').pop()!),
        });
      }
      return out;
    },
    makeKey: (o) => server.makeKey('acme', o),
    async dispose() {
      await client.close();
      await proxy?.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return lib;
}

/** A checked plan; fails the test with every problem when the plan has any. */
export async function plan(inputs: string[], options: PlanOptions = {}, cwd = FIXTURES): Promise<EnginePlan> {
  const p = await buildPlan(inputs, options, { cwd });
  if (p.problems.length) throw new Error(`plan problems:\n${p.problems.map(formatProblem).join('\n')}`);
  return { items: readyItems(p) };
}

/** Copies fixtures into a fresh temp folder (tests that modify or add files use it). */
export async function copyFixtures(names: string[], into: string): Promise<string[]> {
  await mkdir(into, { recursive: true });
  const out: string[] = [];
  for (const name of names) {
    const dest = join(into, name.split('/').pop()!);
    await copyFile(join(FIXTURES, name), dest);
    out.push(dest);
  }
  return out;
}

export function ofType<T extends UploadEvent['type']>(
  events: UploadEvent[],
  type: T,
): Array<Extract<UploadEvent, { type: T }>> {
  return events.filter((e): e is Extract<UploadEvent, { type: T }> => e.type === type);
}

/**
 * A big video that costs no disk: fixtures/video/faststart.mp4 (moov before mdat), its mdat box
 * grown to reach `size` bytes, the file extended sparse with fs.truncate. Its header stays valid.
 */
export async function sparseVideo(dest: string, size: number): Promise<string> {
  await mkdir(dirname(dest), { recursive: true });
  await copyFile(join(FIXTURES, 'video/faststart.mp4'), dest);
  const handle = await open(dest, 'r+');
  try {
    const { size: original } = await handle.stat();
    const header = Buffer.alloc(8);
    for (let offset = 0; offset < original;) {
      await handle.read(header, 0, 8, offset);
      const boxSize = header.readUInt32BE(0);
      if (header.toString('latin1', 4, 8) === 'mdat') {
        const grown = Buffer.alloc(4);
        grown.writeUInt32BE(size - offset);
        await handle.write(grown, 0, 4, offset);
        await handle.truncate(size);
        return dest;
      }
      if (boxSize < 8) break;
      offset += boxSize;
    }
  } finally {
    await handle.close();
  }
  throw new Error('fixtures/video/faststart.mp4 has no mdat box');
}
