// A file's SHA-256 fed from the bytes its parts read as they are sent (issue 41), so that a large
// video hashed beside its parts (./hash-alongside.ts) need not be read from disk twice, once for
// the parts and once more for the hash. The hash keeps a cursor (the bytes hashed so far, always a
// prefix of the file); each slice a part reads is hashed when it covers the cursor (only its part
// beyond the cursor). What the hash's own reader does depends on who waits for the SHA-256:
// - `waitForParts` (nothing is asked of the library before complete: --force, or a service or key
//   that cannot answer the check): the reader reads only where no part in flight is about to feed
//   the cursor. One part at a time in file order, the parts feed every byte and the reader reads
//   nothing; several at once, the parts after the first read ahead of the cursor and the reader
//   reads what they sent before the cursor reached them (at most the file once more); a part
//   stored by an earlier run, one waiting to be retried while others read, or no parts at all (a
//   single PUT): the reader reads those bytes. The SHA-256 is ready as the last bytes are read,
//   which is when complete needs it.
// - otherwise the library is asked whether it holds the file as soon as it is hashed, and a file
//   it holds stops its parts: the reader never waits for a part, it reads on at the disk's pace and
//   takes from the parts only the slices that reach the cursor before it does. The file is read
//   twice unless the parts outrun the disk, but a file the library holds is found in the time the
//   disk takes to read it, not the link to send it (a held 1 GiB video against a local `serve`:
//   waiting for the parts, all of it was sent and it was found at 2.6 s; reading ahead, found at
//   1.5–1.8 s with about half sent, a smaller share on any slower link; bench/notes.md).
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
}

export interface FedHashOptions {
  /** Wait for the parts to feed the cursor (one read of the file) rather than read ahead of them (the SHA-256 sooner). */
  waitForParts: boolean;
}

export function fedHash(file: LocalFile, options: FedHashOptions): FedHash {
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

  /** Whether a part will feed the byte at the cursor without the reader: wait for it then, until something changes. */
  function fedSoon(): boolean {
    if (closed || !options.waitForParts) return false;
    if (!told) return true;
    let reading = false;
    for (const t of tries) {
      if (t.pos <= cursor && cursor < t.range.end) return true;
      reading ||= t.pos < t.range.end;
    }
    // The part holding the cursor is queued (or waits to be retried) and no part of the file is
    // reading (one that read all its bytes awaits only its answer): it is the next to go. While
    // others read, it may wait long: read it.
    return !reading && expected.some((r) => r.start <= cursor && cursor < r.end);
  }

  /** Where the reader's next read stops: a slice, or (waiting for the parts) where a part in flight ahead of the cursor will feed from. */
  function readEnd(): number {
    let end = Math.min(file.size, cursor + READ_SLICE_BYTES);
    if (options.waitForParts) for (const t of tries) if (t.pos > cursor && t.pos < end) end = t.pos;
    return end;
  }

  const reads: FileReads = {
    planned(ranges) {
      told = true;
      expected.push(...ranges);
      changed();
    },
    reading(range) {
      const t: Try = { range, pos: range.start };
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
        if (fedSoon()) {
          await new Promise<void>((resolve) => (wake = resolve));
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
