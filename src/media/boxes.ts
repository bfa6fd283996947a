// Walking ISO base media (MP4) and QuickTime boxes through a ByteSource: headers only, every
// size checked against its parent, so a cut or damaged file is reported, never read past.
import type { ByteSource } from './byte-source.js';
import { MediaError } from './errors.js';

/** A box header: where the box starts, how long it is, and where its payload begins. */
export interface Box {
  type: string;
  start: number;
  end: number;
  payload: number;
}

// Every box is at least 8 bytes; a 64-bit box header is 16.
const HEADER = 8;
const LARGE_HEADER = 16;
// A real file has tens of boxes at one level (thousands of fragments at most); anything near
// this is garbage or an attack.
const MAX_BOXES = 100_000;

/**
 * The boxes in [from, to), in order. Each box is checked: a box claiming more bytes than its
 * parent (or the file) holds means the file was cut short. `first` checks the first box's type.
 */
export async function* children(
  source: ByteSource,
  from: number,
  to: number,
  first?: (type: string) => void,
): AsyncGenerator<Box> {
  let offset = from;
  for (let count = 0; offset < to; count++) {
    if (count >= MAX_BOXES)
      throw new MediaError(
        'malformed',
        `more than ${MAX_BOXES} boxes at one level; the file is damaged or not an MP4/MOV`,
      );
    const box = await readBoxHeader(source, offset, to, count === 0 ? first : undefined);
    yield box;
    // Each box is at least 8 bytes long (checked in readBoxHeader), so the walk always moves on.
    offset = box.end;
  }
}

/** The first box of `type` in [from, to), or undefined. */
export async function findBox(source: ByteSource, from: number, to: number, type: string): Promise<Box | undefined> {
  for await (const box of children(source, from, to)) if (box.type === type) return box;
  return undefined;
}

/** The first box at the end of `path` (e.g. ['mdia', 'hdlr']) inside `parent`. */
export async function findPath(source: ByteSource, parent: Box, path: readonly string[]): Promise<Box | undefined> {
  let box: Box | undefined = parent;
  for (const type of path) {
    box = await findBox(source, box.payload, box.end, type);
    if (!box) return undefined;
  }
  return box;
}

/** Up to `max` bytes of a box's payload. */
export async function payloadOf(source: ByteSource, box: Box, max: number): Promise<Bytes> {
  return new Bytes(await source.read(box.payload, Math.min(max, box.end - box.payload)), box.type);
}

async function readBoxHeader(
  source: ByteSource,
  offset: number,
  parentEnd: number,
  checkType?: (type: string) => void,
): Promise<Box> {
  const room = parentEnd - offset;
  if (room < HEADER) throw truncated(`${room} stray byte${room === 1 ? '' : 's'} where a box header should be`);
  const head = await source.read(offset, Math.min(LARGE_HEADER, room));
  if (head.length < HEADER) throw truncated('the file ends inside a box header');
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const typeBytes = head.subarray(4, 8);
  // The first box's type says whether this is an MP4 at all: checked before its size.
  checkType?.(latin1(typeBytes));
  if (!isBoxType(typeBytes)) {
    throw new MediaError(
      'malformed',
      `found bytes that are not a box type at offset ${offset}; the file is damaged — export it again`,
    );
  }
  const type = latin1(typeBytes);
  const small = view.getUint32(0);
  let size: number;
  let headerSize = HEADER;
  if (small === 1) {
    if (head.length < LARGE_HEADER) throw truncated(`the file ends inside the 64-bit header of the ${type} box`);
    const large = view.getBigUint64(8);
    if (large > BigInt(Number.MAX_SAFE_INTEGER))
      throw new MediaError(
        'malformed',
        `the ${type} box claims ${large} bytes, which is impossible; the file is damaged`,
      );
    size = Number(large);
    headerSize = LARGE_HEADER;
  } else if (small === 0) {
    // Size 0: the box runs to the end of its container (the end of the file at the top level).
    size = room;
  } else {
    size = small;
  }
  if (size < headerSize)
    throw new MediaError(
      'malformed',
      `the ${type} box at offset ${offset} claims ${size} bytes, less than its own header; the file is damaged`,
    );
  if (size > room) {
    const where = parentEnd === source.size ? 'the file' : 'its parent box';
    throw truncated(`the ${type} box at offset ${offset} claims ${size} bytes but ${where} has only ${room} left`);
  }
  return { type, start: offset, end: offset + size, payload: offset + headerSize };
}

// Box types are four printable characters; Apple's metadata atoms start with © (0xA9).
function isBoxType(bytes: Uint8Array): boolean {
  return bytes.every((b) => (b >= 0x20 && b <= 0x7e) || b === 0xa9);
}

export function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

export function truncated(detail: string): MediaError {
  return new MediaError('truncated', `the video is cut short (${detail}); copy or export it again`);
}

/**
 * Big-endian reads from a box's payload that never run past it: a field beyond the end is a
 * damaged (cut or hand-made) box, reported as MediaError 'malformed'.
 */
export class Bytes {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    private readonly box: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get length(): number {
    return this.bytes.length;
  }
  u8(at: number): number {
    this.need(at, 1);
    return this.view.getUint8(at);
  }
  u32(at: number): number {
    this.need(at, 4);
    return this.view.getUint32(at);
  }
  u64big(at: number): bigint {
    this.need(at, 8);
    return this.view.getBigUint64(at);
  }
  /** A 64-bit field as a number; values past 2^53 are impossible in a real file. */
  u64(at: number): number {
    const value = this.u64big(at);
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new MediaError('malformed', `the ${this.box} box holds an impossible 64-bit value; the file is damaged`);
    return Number(value);
  }
  /** The 24 flag bits after a full box's version byte. */
  flags(): number {
    return this.u32(0) & 0xffffff;
  }
  ascii(at: number, length: number): string {
    this.need(at, length);
    return latin1(this.bytes.subarray(at, at + length));
  }
  private need(at: number, length: number): void {
    if (at + length > this.bytes.length)
      throw new MediaError(
        'malformed',
        `the ${this.box} box is shorter than its fields require; the file is damaged — export it again`,
      );
  }
}
