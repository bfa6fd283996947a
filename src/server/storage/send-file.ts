// A stored file's bytes written into an HTTP answer through two buffers read into again and
// again, for the disk store's signed GETs (routes/storage.ts).
//
// Why not a read stream piped into the answer: each of its reads is a fresh buffer, and V8 frees
// those only in full collections, which it starts each time another 64 MB of them is held (its
// external-memory limit). Sending 1 GiB in 1 MiB reads so took ~15 full collections and
// 0.55–0.95 s of `serve`'s CPU, ~40 % of it in those collections, marking a heap that had not
// changed. Here a buffer is read into again only once the answer's write callback said the
// socket has taken its bytes (before that Node may still hold it in a queue): 1 GiB in
// 0.16–0.25 s of CPU to `contentlib download`, 0.16–0.7 s to `curl -o` (bench/notes.md, issue
// 41). Two buffers: one read while the other is being sent.
import type { FileHandle } from 'node:fs/promises';

/** Bytes per read: 1 MiB. Node's read stream takes 64 KiB, 16 times the round trips to the thread pool. */
export const SEND_READ_BYTES = 1024 * 1024;

/** What the bytes go into: an http.ServerResponse (headers written), or a test's stand-in. */
export interface SendTarget {
  write(chunk: Buffer, callback: (err?: Error | null) => void): unknown;
  end(): unknown;
  destroy(err?: Error): unknown;
  once(event: 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
}

/** 'sent': every byte written and the answer ended. 'gone': the answer closed first (the client left). */
export type SendOutcome = 'sent' | 'gone';

/** The file ended before the bytes the answer promised (it was cut short while being sent). */
export class ShortFileError extends Error {
  constructor(at: number, end: number) {
    super(`the stored file ends at byte ${at}, before byte ${end + 1}`);
    this.name = 'ShortFileError';
  }
}

export interface SendOptions {
  /**
   * Writes the answer's status and headers; called once the first read has its bytes, just
   * before they are written. So a file that cannot be read at all is found before anything is
   * sent, and the caller can still answer with an error instead of a cut transfer.
   */
  head?: () => void;
  /** Bytes per read (tests use less). */
  readBytes?: number;
}

/**
 * Writes bytes `start`..`end` (inclusive) of `file` into `out`, then ends it. A read that fails
 * (or finds the file shorter) throws; once the head is written (or without `head`, when the
 * caller wrote it), `out`, whose headers promised a length, is destroyed first. With `head` not
 * yet called (the first read failed), `out` is left as it was: the caller answers. The caller
 * keeps `file` open until this settles.
 */
export async function sendFile(
  file: Pick<FileHandle, 'read'>,
  out: SendTarget,
  start: number,
  end: number,
  { head, readBytes = SEND_READ_BYTES }: SendOptions = {},
): Promise<SendOutcome> {
  let gone = out.destroyed;
  // A write whose socket was destroyed may never call back (Node drops it): 'close' ends the wait.
  const closed = new Promise<void>((resolve) =>
    out.once('close', () => {
      gone = true;
      resolve();
    }),
  );
  const size = Math.max(0, Math.min(readBytes, end - start + 1));
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  // Each buffer's last write: settled once its bytes are the socket's.
  const written: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
  const send = (chunk: Buffer) =>
    Promise.race([
      closed,
      new Promise<void>((resolve) =>
        out.write(chunk, (err) => {
          if (err) gone = true;
          resolve();
        }),
      ),
    ]);
  let headed = false;
  const writeHead = () => {
    if (headed) return;
    headed = true;
    head?.();
  };
  try {
    for (let at = start, i = 0; at <= end; i ^= 1) {
      await written[i];
      if (gone) return 'gone';
      const buffer = buffers[i]!;
      const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - at + 1), at);
      if (gone) return 'gone';
      if (bytesRead === 0) throw new ShortFileError(at, end);
      writeHead();
      written[i] = send(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
    await Promise.all(written);
    if (gone) return 'gone';
    // Nothing to read (an empty range): the head still goes out, with the end.
    writeHead();
    out.end();
    return 'sent';
  } catch (err) {
    // Without `head` the caller wrote the head before calling: its promise cannot be kept either.
    if (headed || !head) out.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}
