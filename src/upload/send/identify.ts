// Content identity for the upload: each file to send is hashed (./hash.ts) and the library asked,
// in batches, whether it holds those bytes already (POST /api/v1/upload/check, an extension).
// The engine asks for items in plan order (`of`); the files go in batches of a few hundred, one
// check request each, hashed one batch ahead of the item the engine is at: the next batch is
// hashed while the current one is sent, and no file waits for all the others to be hashed.
//
// - Each file is read for its hash at most once per run; what the journal already knows is
//   never hashed (the caller's `wanted` leaves it out).
// - The first batch is small, so the first transfer starts soon; later ones are larger.
// - A service without the extension (the check answers 404, 405 or 501): `onUnsupported` is told
//   once, and from then on nothing is hashed or checked, and presign declares no checksum —
//   the upload goes exactly as it did before checksums.
import type { CallOptions } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { CheckMatch, CheckRequest, CheckResponse } from '../../api/schemas.js';
import { StepError } from './events.js';
import { createPool } from '../../concurrency/pool.js';
import { sha256OfFile } from './hash.js';
import type { SendableFile } from './transfer.js';

/** What a batch holds at most: the first one is small, so the first transfer starts soon. */
export const FIRST_BATCH = { files: 16, bytes: 32 * 1024 * 1024 };
export const BATCH = { files: 256, bytes: 1024 * 1024 * 1024 };
/** Files hashed at once: reads overlap in libuv's pool while one is hashed. */
const HASH_CONCURRENCY = 2;

/** What is known of one item: per file (and its thumbnail) the SHA-256 and what the library holds of those bytes. */
export interface ItemIdentity {
  /** undefined where the file was not hashed (known to the journal, or checksums are off). */
  sha256: Array<string | undefined>;
  /** undefined where the library was not asked. */
  matches: Array<CheckMatch[] | undefined>;
  thumbnail?: { sha256: string; matches?: CheckMatch[] };
  /** Hashing or checking failed for this item: a StepError of step 'hash' or 'check'. */
  error?: StepError;
}

/** An item as the identifier sees it: its files and thumbnail, and which of them to hash. */
export interface IdentifiedItem {
  files: readonly SendableFile[];
  thumbnail?: SendableFile;
}

export interface Wanted {
  /** Per file: hash it (it is to be sent, or looked for in the library). */
  files: boolean[];
  thumbnail: boolean;
}

export interface IdentifyDeps {
  api: { check(body: CheckRequest, o?: CallOptions): Promise<CheckResponse> };
  signal: AbortSignal;
  /** Ask the library (false with --force: the files are only hashed, for their checksums). */
  check: boolean;
  /** The service has no check: said once by the caller. */
  onUnsupported(): void;
  onRetry?: (index: number) => CallOptions['onRetry'];
  /** Tests count reads here. */
  hash?: (file: SendableFile, signal: AbortSignal) => Promise<string>;
}

export interface Identifier {
  /** The item's identity, once its batch is hashed and checked (read once: it is then forgotten). */
  of(index: number): Promise<ItemIdentity>;
  /** A file's SHA-256 for presign, hashed now unless known (a file sent after all); undefined when checksums are off. */
  sha256Of(file: SendableFile): Promise<string | undefined>;
  /** Whether presign declares checksums: false once the service showed it has no such extension. */
  readonly declares: boolean;
  /** Whether a hashed file is looked for in the library: not with --force, nor once the service showed it cannot answer. */
  readonly asks: boolean;
  /** The service refused the checksum at presign: from now on none is declared. */
  refused(): void;
  /**
   * What the library holds of one file's bytes, asked on its own (a file hashed while its parts
   * are sent, ./hash-alongside.ts); undefined when the service has no check (said once, as for a
   * batch). Fails with a StepError of step 'check'.
   */
  lookup(file: SendableFile, sha256: string, onRetry?: CallOptions['onRetry']): Promise<CheckMatch[] | undefined>;
}

interface Batch {
  first: number;
  end: number;
}

/** A promise with its resolvers, made before whoever settles it is known. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // read by `of`; a batch failing before anyone asks must not go unhandled
  return { promise, resolve, reject };
}

/**
 * 404, 405, 501: a service without POST /api/v1/upload/check. 403: a key that may write but not
 * read the library (a write-only CI key, docs/api.md Scopes) cannot ask either; it uploads as before.
 */
export function isUnsupported(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    (err.status === 404 || err.status === 405 || err.status === 501 || (err.status === 403 && err.code === 'forbidden'))
  );
}

export function createIdentifier(
  items: readonly IdentifiedItem[],
  wanted: (index: number) => Wanted,
  deps: IdentifyDeps,
): Identifier {
  const hashOf = deps.hash ?? sha256OfFile;
  const results = new Map<number, ReturnType<typeof deferred<ItemIdentity>>>();
  const slot = (i: number) => {
    let d = results.get(i);
    if (!d) results.set(i, (d = deferred<ItemIdentity>()));
    return d;
  };
  let on = true;
  let declares = true;
  let asked = -1;
  let wake: (() => void) | undefined;
  let started = false;
  const known = new WeakMap<SendableFile, string>();

  function off(): void {
    if (!on) return;
    on = false;
    declares = false;
    deps.onUnsupported();
  }

  /** The items from `first` on that fill one batch (whole items: a carousel is never split). */
  function nextBatch(first: number, limits: typeof BATCH): Batch {
    let files = 0;
    let bytes = 0;
    let end = first;
    while (end < items.length && files < limits.files && bytes < limits.bytes) {
      const w = wanted(end);
      const item = items[end]!;
      item.files.forEach((f, n) => {
        if (!w.files[n]) return;
        files++;
        bytes += f.size;
      });
      if (w.thumbnail && item.thumbnail) {
        files++;
        bytes += item.thumbnail.size;
      }
      end++;
    }
    return { first, end };
  }

  async function hashBatch(b: Batch, identities: Map<number, ItemIdentity>): Promise<void> {
    const pool = createPool(HASH_CONCURRENCY, deps.signal);
    const work: Array<Promise<void>> = [];
    for (let i = b.first; i < b.end; i++) {
      const item = items[i]!;
      const w = wanted(i);
      const id: ItemIdentity = { sha256: item.files.map(() => undefined), matches: item.files.map(() => undefined) };
      identities.set(i, id);
      const hash = async (file: SendableFile): Promise<string | undefined> => {
        try {
          return await sha256Of(file);
        } catch (err) {
          id.error ??= new StepError('hash', err);
          return undefined;
        }
      };
      item.files.forEach((f, n) => {
        if (w.files[n]) work.push(pool.run(async () => void (id.sha256[n] = await hash(f))));
      });
      const thumb = item.thumbnail;
      if (w.thumbnail && thumb)
        work.push(
          pool.run(async () => {
            const sha256 = await hash(thumb);
            if (sha256) id.thumbnail = { sha256 };
          }),
        );
    }
    await Promise.all(work);
  }

  async function checkBatch(b: Batch, identities: Map<number, ItemIdentity>): Promise<void> {
    // Each distinct content (SHA-256 and size) is asked about once, in plan order of its first
    // file, and every file with those bytes gets the same answer (one array, shared). A folder of
    // copies asked once per copy made the answer grow with copies × the items holding the bytes:
    // 10,000 copies of one photo in a library holding it 280 times came back as 256 × 280
    // matches per batch, and took the run's peak RSS to ~300 MB (bench/notes.md, issue 41).
    const asked = new Map<string, { sha256: string; size: number; put: Array<(m: CheckMatch[]) => void> }>();
    const ask = (sha256: string, size: number, put: (m: CheckMatch[]) => void) => {
      const key = `${sha256}/${size}`;
      const entry = asked.get(key);
      if (entry) entry.put.push(put);
      else asked.set(key, { sha256, size, put: [put] });
    };
    for (const [i, id] of identities) {
      if (id.error) continue;
      const item = items[i]!;
      id.sha256.forEach((sha256, n) => {
        if (sha256) ask(sha256, item.files[n]!.size, (m) => (id.matches[n] = m));
      });
      const t = id.thumbnail;
      if (t && item.thumbnail) ask(t.sha256, item.thumbnail.size, (m) => (t.matches = m));
    }
    if (asked.size === 0) return;
    const distinct = [...asked.values()];
    try {
      const res = await deps.api.check(
        { files: distinct.map(({ sha256, size }) => ({ sha256, size })) },
        { signal: deps.signal, onRetry: deps.onRetry?.(b.first) },
      );
      res.files.forEach((f, k) => distinct[k]?.put.forEach((put) => put(f.matches)));
    } catch (err) {
      if (isUnsupported(err)) return off();
      for (const [, id] of identities) id.error ??= new StepError('check', err);
    }
  }

  async function runBatch(b: Batch): Promise<void> {
    const identities = new Map<number, ItemIdentity>();
    if (on) {
      await hashBatch(b, identities);
      if (deps.check && on) await checkBatch(b, identities);
    }
    for (let i = b.first; i < b.end; i++) {
      const id = identities.get(i) ?? { sha256: items[i]!.files.map(() => undefined), matches: [] };
      slot(i).resolve(id);
    }
  }

  /** Batch after batch, each started once the engine has reached the one before. */
  async function drive(): Promise<void> {
    let first = 0;
    let previous = -1;
    let limits = FIRST_BATCH;
    try {
      while (first < items.length) {
        while (asked < previous && !deps.signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
        deps.signal.throwIfAborted();
        const b = nextBatch(first, limits);
        await runBatch(b);
        previous = b.first;
        first = b.end;
        limits = BATCH;
      }
    } catch (err) {
      for (let i = first; i < items.length; i++) slot(i).reject(err);
    }
  }

  async function sha256Of(file: SendableFile): Promise<string | undefined> {
    if (!on) return undefined;
    const had = known.get(file);
    if (had) return had;
    const sha256 = await hashOf(file, deps.signal);
    known.set(file, sha256);
    return sha256;
  }

  const onAbort = () => wake?.();
  deps.signal.addEventListener('abort', onAbort, { once: true });

  return {
    async of(index) {
      if (!started) {
        started = true;
        void drive().finally(() => deps.signal.removeEventListener('abort', onAbort));
      }
      asked = Math.max(asked, index);
      wake?.();
      const d = slot(index);
      try {
        return await d.promise;
      } finally {
        results.delete(index);
      }
    },
    sha256Of: (file) => (declares ? sha256Of(file) : Promise.resolve(undefined)),
    get declares() {
      return declares;
    },
    get asks() {
      return deps.check && on;
    },
    refused() {
      declares = false;
    },
    async lookup(file, sha256, onRetry) {
      if (!on) return undefined;
      try {
        const res = await deps.api.check({ files: [{ sha256, size: file.size }] }, { signal: deps.signal, onRetry });
        return res.files[0]?.matches ?? [];
      } catch (err) {
        if (isUnsupported(err)) return void off();
        throw new StepError('check', err);
      }
    },
  };
}
