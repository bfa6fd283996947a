// Stand-in until media/ offers a parser over a ByteSource: the duration from moov/mvhd (moov
// before or after mdat), read with positional reads only. Replaced by media's probe on merge.
import { MediaError } from '../media/errors.js';

export interface RangeSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

interface Box {
  type: string;
  end: number;
  payload: number;
}

async function boxAt(source: RangeSource, offset: number, end: number): Promise<Box> {
  const head = Buffer.from(await source.read(offset, 16));
  if (head.length < 8 || offset + 8 > end) throw new MediaError('truncated', 'the video is cut short');
  const small = head.readUInt32BE(0);
  let size = small;
  let header = 8;
  if (small === 1) {
    if (head.length < 16) throw new MediaError('truncated', 'the video is cut short');
    size = Number(head.readBigUInt64BE(8));
    header = 16;
  } else if (small === 0) size = end - offset;
  if (size < header || offset + size > end)
    throw new MediaError('malformed', `a box at offset ${offset} has an impossible size; the file is damaged`);
  return { type: head.toString('latin1', 4, 8), end: offset + size, payload: offset + header };
}

async function find(source: RangeSource, from: number, to: number, type: string): Promise<Box | undefined> {
  for (let offset = from, n = 0; offset < to && n < 100_000; n++) {
    const box = await boxAt(source, offset, to);
    if (box.type === type) return box;
    offset = box.end;
  }
  return undefined;
}

/** Seconds of video from the movie header; MediaError when they cannot be read. */
export async function probeStoredVideo(source: RangeSource): Promise<number> {
  const moov = await find(source, 0, source.size, 'moov');
  if (!moov) throw new MediaError('no_moov', 'no movie header (moov box) found, so the duration cannot be read');
  const mvhd = await find(source, moov.payload, moov.end, 'mvhd');
  if (!mvhd) throw new MediaError('no_mvhd', 'the movie header has no mvhd box');
  const b = Buffer.from(await source.read(mvhd.payload, Math.min(32, mvhd.end - mvhd.payload)));
  const v1 = b[0] === 1;
  if (b.length < (v1 ? 32 : 20)) throw new MediaError('truncated', 'the mvhd box is cut short');
  const timescale = b.readUInt32BE(v1 ? 20 : 12);
  const units = v1 ? Number(b.readBigUInt64BE(24)) : b.readUInt32BE(16);
  if (timescale === 0 || units === 0 || units === 0xffffffff)
    throw new MediaError('no_duration', 'the movie header does not say how long the video is');
  return units / timescale;
}
