// Tiny builders for ISO base media boxes, for tests: just enough structure for the box walker,
// and sparse files that look like big videos without costing disk.
import { truncate, writeFile } from 'node:fs/promises';

export const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
export const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
export const box = (type: string, ...payload: Buffer[]) => {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
};
export const largeBox = (type: string, ...payload: Buffer[]) => {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(1), Buffer.from(type, 'latin1'), u64(BigInt(16 + body.length)), body]);
};
export const ftyp = box('ftyp', Buffer.from('isom'), u32(0x200), Buffer.from('isomiso2avc1mp41'));
export const mvhd0 = (timescale: number, duration: number) =>
  box('mvhd', Buffer.from([0, 0, 0, 0]), u32(0), u32(0), u32(timescale), u32(duration), Buffer.alloc(80));
export const mvhd1 = (timescale: number, duration: bigint) =>
  box('mvhd', Buffer.from([1, 0, 0, 0]), u64(0n), u64(0n), u32(timescale), u64(duration), Buffer.alloc(80));
/** A full box: version, 24 flag bits, then the payload. */
export const fullBox = (type: string, version: number, flags: number, ...payload: Buffer[]) =>
  box(type, Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]), ...payload);
/** A track of `handler` kind ('vide', 'soun'): tkhd with its id, mdia with mdhd and hdlr. */
export const track = (handler: string, id = 1, timescale = 1000, units = 0) =>
  box(
    'trak',
    fullBox('tkhd', 0, 3, u32(0), u32(0), u32(id), Buffer.alloc(72)),
    box(
      'mdia',
      fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(units), Buffer.alloc(4)),
      fullBox('hdlr', 0, 0, u32(0), Buffer.from(handler, 'latin1'), Buffer.alloc(13)),
    ),
  );
/** A video track: what makes an MP4 a video. */
export const trak = track('vide');
export const mdat = (bytes: number) => box('mdat', Buffer.alloc(bytes, 0xaa));

/** A small but well-formed MP4 of `seconds` (millisecond precision). */
export function tinyMp4(seconds: number): Buffer {
  return Buffer.concat([ftyp, box('moov', mvhd0(1000, Math.round(seconds * 1000)), trak), mdat(64)]);
}

/**
 * A sparse MP4 of exactly `size` bytes and `seconds`: a real header (ftyp, moov) then a 64-bit
 * mdat box that claims the rest; fs.truncate extends the file with holes, so no disk is used.
 */
export async function sparseMp4(path: string, size: number, seconds: number): Promise<void> {
  const head = Buffer.concat([ftyp, box('moov', mvhd0(1000, Math.round(seconds * 1000)), trak)]);
  const mdatSize = size - head.length;
  await writeFile(path, Buffer.concat([head, u32(1), Buffer.from('mdat'), u64(BigInt(mdatSize))]));
  await truncate(path, size);
}

/** A sparse file of `size` bytes starting with `head` (e.g. a PNG signature). */
export async function sparseFile(path: string, size: number, head: Buffer): Promise<void> {
  await writeFile(path, head);
  await truncate(path, size);
}

export const PNG_HEAD = Buffer.from('\x89PNG\r\n\x1a\n\0\0\0\rIHDR', 'latin1');
