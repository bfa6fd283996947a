// Where the media parser gets its bytes: a size and positional reads, nothing else. A local
// file is one implementation; object storage can be another (a ranged GET per read), so the
// same parser checks a file on the user's disk and an object on the server.
import { open, type FileHandle } from 'node:fs/promises';
import { MediaError } from './errors.js';

/** A random-access byte source of known size. */
export interface ByteSource {
  readonly size: number;
  /**
   * Up to `length` bytes from `offset`: fewer only at the end of the source. Throws MediaError
   * ('unreadable') when the bytes cannot be read.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A ByteSource over an open file; close it when done. */
export interface FileSource extends ByteSource {
  close(): Promise<void>;
}

/** Opens `path` for positional reads. Throws MediaError ('unreadable', 'empty' is left to callers). */
export async function openFileSource(path: string): Promise<FileSource> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw unreadable(err);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    return {
      size: st.size,
      read: (offset, length) => readFully(handle, offset, length),
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw unreadable(err);
  }
}

/** Runs `use` with a FileSource on `path` and always closes it. */
export async function withFileSource<T>(path: string, use: (source: FileSource) => Promise<T>): Promise<T> {
  const source = await openFileSource(path);
  try {
    return await use(source);
  } finally {
    await source.close();
  }
}

/** A ByteSource over bytes already in memory (tests, small uploads). */
export function bufferSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => Promise.resolve(bytes.subarray(offset, Math.min(bytes.length, offset + length))),
  };
}

// How much one underlying read fetches. Box headers sit next to small boxes (a moof with its
// traf, a moov's first children), so one read of this size usually serves a whole walk step;
// 16 KB keeps a fragmented file of a thousand fragments at a few MB read in total.
const WINDOW = 16 * 1024;

/**
 * Wraps a source so that small reads are served from one read-ahead window: walking box
 * headers then costs one underlying read per distant position, not one per header. Reads
 * larger than the window go straight through.
 */
export function readAhead(source: ByteSource, window = WINDOW): ByteSource {
  let start = 0;
  let bytes: Uint8Array = new Uint8Array(0);
  return {
    size: source.size,
    async read(offset, length) {
      const end = Math.min(source.size, offset + length);
      if (offset >= start && end <= start + bytes.length) return bytes.subarray(offset - start, end - start);
      if (length > window) return source.read(offset, length);
      bytes = await source.read(offset, window);
      start = offset;
      return bytes.subarray(0, end - offset);
    },
  };
}

async function readFully(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = Buffer.alloc(Math.max(0, length));
  let filled = 0;
  // read() may return fewer bytes than asked for; loop until full or end of file.
  while (filled < buf.length) {
    const { bytesRead } = await handle
      .read(buf, filled, buf.length - filled, position + filled)
      .catch((err: unknown) => {
        throw unreadable(err);
      });
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}

/** A MediaError for a file that cannot be opened or read, saying why in plain words. */
export function unreadable(err: unknown): MediaError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT'
      ? 'it does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : ((err as Error | undefined)?.message ?? String(err));
  return new MediaError('unreadable', `the file cannot be read (${why}); check the path and its permissions`, {
    cause: err,
  });
}
