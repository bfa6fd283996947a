// A file's SHA-256 fed from the bytes its parts read as they are sent (issue 41), so that a large
// video hashed beside its parts (./hash-alongside.ts) is read from disk once, not once for the
// parts and once more for the hash. The hash keeps a cursor (the bytes hashed so far, always a
// prefix of the file); each slice a part reads is hashed when it covers the cursor (only its part
// beyond the cursor), and the hash's own reader reads the file only where no part in flight is
// about to feed it:
// - one part at a time, in file order: the parts feed every byte and the reader reads nothing;
// - several at once: the parts after the first read ahead of the cursor, and the reader reads
//   what they sent before the cursor reached them (at most the file once more, as before);
// - a part stored by an earlier run, one waiting to be retried while others are in flight, or no
//   parts at all (a single PUT): the reader reads those bytes.
// - a part that feeds slowly (a slow link: below `minBytesPerSecond` once it has run
//   `judgeAfterMs`): the reader reads ahead of it at the disk's speed, so the SHA-256 (and the
//   library's answer that a file is already there, which aborts its upload) comes as early as when
//   the hash had its own read; the part's later slices, behind the cursor then, are not hashed.
// Everything runs on the main thread, so a check of the cursor and its update are one step; a
// slice is hashed synchronously when it is read, before the part's ring buffer is reused. A file
// changed meanwhile is caught as in ./hash.ts: its size and mtime are checked once all is hashed.
import { createHash } from 'node:crypto';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { assertSame } from './hash.js';
import type { ByteRange, FileReads } from './file-reads.js';
import { FileChangedError, type LocalFile, READ_SLICE_BYTES } from './put.js';

export interface FedHash {
  /** Handed to the sender. */
  reads: FileReads;
  /** The SHA-256 once every byte is hashed; reads the gaps itself. Fails on a changed file or `signal`. */
  digest(signal?: AbortSignal): Promise<string>;
  /** Bytes the parts read (each try, all of its slices) and bytes the reader read itself. */
  readonly counts: { fed: number; read: number };
}

interface Try {
  range: ByteRange;
  /** The next byte this try will read. */
  pos: number;
  /** When it started (FeedPace.now). */
  at: number;
}

/** When a part feeds too slowly to wait for. */
export interface FeedPace {
  /** A part is judged once it has run this long (ms): a loopback part of 8 MiB is done before. */
  judgeAfterMs: number;
  /** Below this rate (its bytes since it started), the reader reads ahead of it. */
  minBytesPerSecond: number;
  now: () => number;
}

export const FEED_PACE: FeedPace = {
  judgeAfterMs: 200,
  minBytesPerSecond: 32 * 1024 * 1024,
  now: () => performance.now(),
};

export function fedHash(file: LocalFile, pace: FeedPace = FEED_PACE): FedHash {
  const hash = createHash('sha256');
  let cursor = 0;
  /** planned() or done() said: until then the sender has not said what it will read. */
  let told = false;
  let closed = false;
  const expected: ByteRange[] = [];
  const tries = new Set<Try>();
  const counts = { fed: 0, read: 0 };
  let wake: (() => void) | undefined;
  const changed = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  /** Hashes what of [offset, offset + bytes.length) lies beyond the cursor, when it reaches the cursor. */
  function take(offset: number, bytes: Buffer): void {
    const end = offset + bytes.length;
    if (offset > cursor || end <= cursor) return;
    hash.update(offset === cursor ? bytes : bytes.subarray(cursor - offset));
    cursor = end;
    changed();
  }

  /**
   * Whether a part will feed the byte at the cursor without the reader: wait for it then, at most
   * the ms given (a part not yet judged for its pace), or until something changes (no ms).
   */
  function fedSoon(): { wait: boolean; atMostMs?: number } {
    if (closed) return { wait: false };
    if (!told) return { wait: true };
    let reading = false;
    for (const t of tries) {
      if (t.pos <= cursor && cursor < t.range.end) {
        const ran = pace.now() - t.at;
        if (ran < pace.judgeAfterMs)
          return Number.isFinite(pace.judgeAfterMs)
            ? { wait: true, atMostMs: pace.judgeAfterMs - ran }
            : { wait: true };
        if (((t.pos - t.range.start) * 1000) / ran >= pace.minBytesPerSecond) return { wait: true };
        return { wait: false }; // too slow to wait for: read ahead of it
      }
      reading ||= t.pos < t.range.end;
    }
    // The part holding the cursor is queued (or waits to be retried) and no part of the file is
    // reading (one that read all its bytes awaits only its answer): it is the next to go. While
    // others read, it may wait long: read it.
    return { wait: !reading && expected.some((r) => r.start <= cursor && cursor < r.end) };
  }

  /** Where the reader's next read stops: a slice, or where a part in flight ahead of the cursor will feed from. */
  function readEnd(): number {
    let end = Math.min(file.size, cursor + READ_SLICE_BYTES);
    for (const t of tries) if (t.pos > cursor && t.pos < end) end = t.pos;
    return end;
  }

  const reads: FileReads = {
    planned(ranges) {
      told = true;
      expected.push(...ranges);
      changed();
    },
    reading(range) {
      const t: Try = { range, pos: range.start, at: pace.now() };
      tries.add(t);
      changed();
      return {
        slice(offset, bytes) {
          counts.fed += bytes.length;
          t.pos = offset + bytes.length;
          take(offset, bytes);
        },
        end(stored) {
          tries.delete(t);
          if (stored) {
            const i = expected.findIndex((r) => r.start === range.start && r.end === range.end);
            if (i >= 0) expected.splice(i, 1);
          }
          changed();
        },
      };
    },
    done() {
      told = true;
      closed = true;
      changed();
    },
  };

  async function digest(signal?: AbortSignal): Promise<string> {
    let handle: FileHandle | undefined;
    let buf: Buffer | undefined;
    const onAbort = () => changed();
    signal?.addEventListener('abort', onAbort);
    try {
      while (cursor < file.size) {
        signal?.throwIfAborted();
        const soon = fedSoon();
        if (soon.wait) {
          let judge: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            // Woken to judge a young part's pace; unref'd: it never keeps the process alive.
            if (soon.atMostMs !== undefined) judge = setTimeout(changed, Math.ceil(soon.atMostMs)).unref();
          });
          // Woken by a slice first: that timer's job is done (one pending per wait, not one per slice).
          clearTimeout(judge);
          continue;
        }
        if (!handle) {
          handle = await open(file.path, 'r');
          assertSame(file, await handle.stat(), 'since it was checked, before');
        }
        const at = cursor;
        const length = readEnd() - at;
        buf ??= Buffer.allocUnsafe(READ_SLICE_BYTES);
        const { bytesRead } = await handle.read(buf, 0, length, at);
        counts.read += bytesRead;
        if (bytesRead === 0) throw new FileChangedError(file.path, `it ended after ${at} of ${file.size} bytes while`);
        // The parts may have fed some of it meanwhile: only what lies beyond the cursor counts.
        take(at, buf.subarray(0, bytesRead));
      }
      signal?.throwIfAborted();
      assertSame(file, await (handle ? handle.stat() : stat(file.path)), 'while');
      return hash.digest('hex');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await handle?.close().catch(() => {});
    }
  }

  return { reads, digest, counts };
}
