// The duration of an MP4/MOV video from its movie header (`moov/mvhd`), read with positional
// reads through a FileHandle: only box headers and the few bytes of `mvhd` are read, and `mdat`
// (the bulk of the file) is skipped by seeking, so a 1 GB video costs a handful of small reads.
//
// Written by hand rather than taken from `music-metadata` or `file-type`: their current
// versions need Node 22 and we support Node 20; one box walk is all we need.
import { open, type FileHandle } from 'node:fs/promises';
import { MediaError } from './errors.js';

/** A box header: where the box starts, how long it is, and where its payload begins. */
interface Box {
  type: string;
  start: number;
  end: number;
  payload: number;
}

// Every box is at least 8 bytes; a 64-bit box header is 16.
const HEADER = 8;
const LARGE_HEADER = 16;
// mvhd version 1 needs 1 + 3 + 8 + 8 + 4 + 8 = 32 bytes of payload; version 0 needs 20.
const MVHD_BYTES = 32;
// What an MP4/MOV can start with: ftyp (ISO), styp (a segment), or a QuickTime lead atom.
const FIRST_BOXES = new Set(['ftyp', 'styp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
// A real file has tens of top-level boxes; anything near this is garbage or an attack.
const MAX_BOXES = 100_000;

/** Seconds of video in the MP4/MOV file at `path`; throws MediaError when they cannot be read. */
export async function readVideoDuration(path: string): Promise<number> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw unreadable(err);
  }
  try {
    const { size } = await handle.stat().catch((err: unknown) => {
      throw unreadable(err);
    });
    if (size === 0) throw new MediaError('empty', 'the file is empty (0 bytes); export or copy the video again');
    const moov = await walkTopLevel(handle, size);
    if (!moov) {
      throw new MediaError(
        'no_moov',
        'no movie header (moov box) found, so the duration cannot be read; the file may be incomplete or still being written — export it again',
      );
    }
    return await durationOfMoov(handle, moov, size);
  } finally {
    await handle.close();
  }
}

async function durationOfMoov(handle: FileHandle, moov: Box, fileSize: number): Promise<number> {
  const mvhd = await findBox(handle, moov.payload, moov.end, fileSize, 'mvhd');
  if (!mvhd)
    throw new MediaError(
      'no_mvhd',
      'the movie header (moov) has no mvhd box, so the duration cannot be read; export the video again',
    );
  const buf = await readAt(handle, mvhd.payload, Math.min(MVHD_BYTES, mvhd.end - mvhd.payload));
  const { timescale, duration } = parseMvhd(buf);
  if (timescale === 0)
    throw new MediaError(
      'no_duration',
      'the movie header gives a timescale of 0, so the duration cannot be computed; export the video again',
    );
  let units = duration;
  // Fragmented MP4 leaves mvhd's duration at 0 (or all ones) and puts the total in mvex/mehd.
  if (units === undefined || units === 0) units = await fragmentDuration(handle, moov, fileSize);
  if (units === undefined || units === 0) {
    throw new MediaError(
      'no_duration',
      'the movie header does not say how long the video is (0 or unknown); export it again as a regular, non-streaming MP4/MOV',
    );
  }
  return units / timescale;
}

/** mvhd's timescale and duration; duration is undefined when the file says "unknown" (all ones). */
function parseMvhd(buf: Buffer): { timescale: number; duration: number | undefined } {
  if (buf.length === 0)
    throw new MediaError('truncated', 'the mvhd box is empty; the file is damaged — export it again');
  const version = buf[0];
  if (version === 0 && buf.length >= 20) {
    const duration = buf.readUInt32BE(16);
    return { timescale: buf.readUInt32BE(12), duration: duration === 0xffffffff ? undefined : duration };
  }
  if (version === 1 && buf.length >= 32) {
    const duration = buf.readBigUInt64BE(24);
    return {
      timescale: buf.readUInt32BE(20),
      duration: duration === 0xffffffffffffffffn ? undefined : Number(duration),
    };
  }
  if (version !== 0 && version !== 1) {
    throw new MediaError(
      'malformed',
      `the mvhd box has version ${String(version)}, which is not 0 or 1; the file is damaged or not an MP4/MOV`,
    );
  }
  throw new MediaError(
    'truncated',
    'the mvhd box is shorter than its version requires; the file is damaged — export it again',
  );
}

/** The fragment duration from moov/mvex/mehd, in the movie timescale, if the file has one. */
async function fragmentDuration(handle: FileHandle, moov: Box, fileSize: number): Promise<number | undefined> {
  const mvex = await findBox(handle, moov.payload, moov.end, fileSize, 'mvex');
  if (!mvex) return undefined;
  const mehd = await findBox(handle, mvex.payload, mvex.end, fileSize, 'mehd');
  if (!mehd) return undefined;
  const buf = await readAt(handle, mehd.payload, Math.min(12, mehd.end - mehd.payload));
  if (buf[0] === 1 && buf.length >= 12) return Number(buf.readBigUInt64BE(4));
  if (buf[0] === 0 && buf.length >= 8) return buf.readUInt32BE(4);
  return undefined;
}

/**
 * Walks every top-level box (headers only) and returns `moov`. The walk goes on past `moov` so
 * that a file cut short inside `mdat` is reported even when its header came first (faststart).
 */
async function walkTopLevel(handle: FileHandle, fileSize: number): Promise<Box | undefined> {
  let moov: Box | undefined;
  let offset = 0;
  for (let count = 0; offset < fileSize; count++) {
    if (count >= MAX_BOXES)
      throw new MediaError(
        'malformed',
        `more than ${MAX_BOXES} top-level boxes; the file is damaged or not an MP4/MOV`,
      );
    const box = await readBoxHeader(handle, offset, fileSize, fileSize, count === 0);
    if (box.type === 'moov' && !moov) moov = box;
    offset = box.end;
  }
  return moov;
}

/**
 * Walks the boxes in [from, to) and returns the first of `type`. Every box is checked: a box
 * claiming more bytes than its parent (or the file) holds means the file was cut short.
 */
async function findBox(
  handle: FileHandle,
  from: number,
  to: number,
  fileSize: number,
  type: string,
): Promise<Box | undefined> {
  let offset = from;
  for (let count = 0; offset < to; count++) {
    if (count >= MAX_BOXES)
      throw new MediaError(
        'malformed',
        `more than ${MAX_BOXES} boxes at one level; the file is damaged or not an MP4/MOV`,
      );
    const box = await readBoxHeader(handle, offset, to, fileSize, false);
    if (box.type === type) return box;
    // Each box is at least 8 bytes long (checked in readBoxHeader), so the walk always moves on.
    offset = box.end;
  }
  return undefined;
}

async function readBoxHeader(
  handle: FileHandle,
  offset: number,
  parentEnd: number,
  fileSize: number,
  first: boolean,
): Promise<Box> {
  const room = parentEnd - offset;
  if (room < HEADER) throw truncated(`${room} stray byte${room === 1 ? '' : 's'} where a box header should be`);
  const head = await readAt(handle, offset, Math.min(LARGE_HEADER, room));
  if (head.length < HEADER) throw truncated('the file ends inside a box header');
  const type = head.toString('latin1', 4, 8);
  if (first && !FIRST_BOXES.has(type)) {
    throw new MediaError(
      'not_mp4',
      'the file does not start with an MP4/MOV box (ftyp, moov, mdat…); it is not an MP4 or MOV video',
    );
  }
  if (!isBoxType(head.subarray(4, 8))) {
    throw new MediaError(
      'malformed',
      `found bytes that are not a box type at offset ${offset}; the file is damaged — export it again`,
    );
  }
  const small = head.readUInt32BE(0);
  let size: number;
  let headerSize = HEADER;
  if (small === 1) {
    if (head.length < LARGE_HEADER) throw truncated(`the file ends inside the 64-bit header of the ${type} box`);
    const large = head.readBigUInt64BE(8);
    if (large > BigInt(Number.MAX_SAFE_INTEGER))
      throw new MediaError(
        'malformed',
        `the ${type} box claims ${large} bytes, which is impossible; the file is damaged`,
      );
    size = Number(large);
    headerSize = LARGE_HEADER;
  } else if (small === 0) {
    // Size 0: the box runs to the end of its container (the end of the file at the top level).
    size = parentEnd - offset;
  } else {
    size = small;
  }
  if (size < headerSize)
    throw new MediaError(
      'malformed',
      `the ${type} box at offset ${offset} claims ${size} bytes, less than its own header; the file is damaged`,
    );
  if (offset + size > parentEnd) {
    const where = parentEnd === fileSize ? 'the file' : 'its parent box';
    throw truncated(`the ${type} box at offset ${offset} claims ${size} bytes but ${where} has only ${room} left`);
  }
  return { type, start: offset, end: offset + size, payload: offset + headerSize };
}

// Box types are four printable characters; Apple's metadata atoms start with © (0xA9).
function isBoxType(bytes: Buffer): boolean {
  return bytes.every((b) => (b >= 0x20 && b <= 0x7e) || b === 0xa9);
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
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

function truncated(detail: string): MediaError {
  return new MediaError('truncated', `the video is cut short (${detail}); copy or export it again`);
}

function unreadable(err: unknown): MediaError {
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
