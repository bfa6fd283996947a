// The facts of an image (issue 39): its size from the header each format puts first (JPEG's
// SOF segment, PNG's IHDR, WebP's VP8/VP8L/VP8X chunk, GIF's screen descriptor) and the EXIF
// Orientation tag a phone writes instead of turning the pixels (JPEG APP1, WebP EXIF chunk).
// Only headers are read, through a ByteSource, never the picture data.
import { MEDIA_FACTS_VERSION, type MediaFacts, orientationOf, ratioOf } from '../rules/media-facts.js';
import type { ByteSource } from './byte-source.js';
import { MediaError } from './errors.js';

// JPEG headers (EXIF with its thumbnail, ICC profiles) sit in the first tens of KB; a camera's
// maker notes can push the frame header further, so segments are walked up to this far.
const JPEG_HEADER_LIMIT = 2 * 1024 * 1024;

interface Size {
  format: string;
  width: number;
  height: number;
  orientation: number;
}

/** The facts of the image in `source`; throws MediaError 'malformed' when its header cannot be read. */
export async function readImageFacts(source: ByteSource): Promise<MediaFacts> {
  const head = await source.read(0, 64);
  const size = await sizeOf(source, head);
  if (!size || size.width === 0 || size.height === 0)
    throw new MediaError('malformed', 'the image header gives no size; the file is damaged — export it again');
  // Orientations 5–8 turn the picture a quarter: its shown sides are swapped.
  const swapped = size.orientation >= 5 && size.orientation <= 8;
  const [displayWidth, displayHeight] = swapped ? [size.height, size.width] : [size.width, size.height];
  return {
    version: MEDIA_FACTS_VERSION,
    kind: 'image',
    width: size.width,
    height: size.height,
    displayWidth,
    displayHeight,
    displayAspectRatio: ratioOf(displayWidth, displayHeight),
    orientation: orientationOf(displayWidth, displayHeight),
    exifOrientation: size.orientation,
    imageFormat: size.format,
  };
}

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

async function sizeOf(source: ByteSource, head: Uint8Array): Promise<Size | undefined> {
  const v = view(head);
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8) return jpegSize(source);
  if (head.length >= 24 && ascii(head, 1, 4) === 'PNG' && ascii(head, 12, 16) === 'IHDR')
    return { format: 'png', width: v.getUint32(16), height: v.getUint32(20), orientation: 1 };
  if (head.length >= 30 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return webpSize(source, head);
  if (head.length >= 10 && ascii(head, 0, 4) === 'GIF8')
    return { format: 'gif', width: v.getUint16(6, true), height: v.getUint16(8, true), orientation: 1 };
  return undefined;
}

/** Walks JPEG segments (marker, 16-bit length) to the first frame header; EXIF on the way. */
async function jpegSize(source: ByteSource): Promise<Size | undefined> {
  let at = 2;
  let orientation = 1;
  while (at + 4 <= Math.min(source.size, JPEG_HEADER_LIMIT)) {
    const marker = await source.read(at, 4);
    if (marker.length < 4 || marker[0] !== 0xff) return undefined;
    const type = marker[1]!;
    // Fill bytes (0xFF) may pad between segments.
    if (type === 0xff) {
      at++;
      continue;
    }
    const length = (marker[2]! << 8) | marker[3]!;
    // SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (type >= 0xc0 && type <= 0xcf && type !== 0xc4 && type !== 0xc8 && type !== 0xcc) {
      const sof = view(await source.read(at + 4, 5));
      if (sof.byteLength < 5) return undefined;
      return { format: 'jpeg', width: sof.getUint16(3), height: sof.getUint16(1), orientation };
    }
    if (type === 0xda || type === 0xd9) return undefined;
    if (type === 0xe1 && length > 8) {
      const app1 = await source.read(at + 4, Math.min(length - 2, 64 * 1024));
      if (ascii(app1, 0, 6) === 'Exif\0\0') orientation = exifOrientation(app1.subarray(6)) ?? orientation;
    }
    at += 2 + length;
  }
  return undefined;
}

/** The Orientation tag (0x0112) of a TIFF structure's first IFD, or undefined. */
export function exifOrientation(tiff: Uint8Array): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = ascii(tiff, 0, 2) === 'II';
  if (!little && ascii(tiff, 0, 2) !== 'MM') return undefined;
  const v = view(tiff);
  const ifd = v.getUint32(4, little);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = v.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > tiff.length) return undefined;
    if (v.getUint16(e, little) === 0x0112) {
      const value = v.getUint16(e + 8, little);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

/** WebP: the first chunk gives the size (VP8 key frame, VP8L header, or VP8X canvas); VP8X may carry EXIF. */
async function webpSize(source: ByteSource, head: Uint8Array): Promise<Size | undefined> {
  const v = view(head);
  const chunk = ascii(head, 12, 16);
  if (chunk === 'VP8 ')
    // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height (little-endian).
    return {
      format: 'webp',
      width: v.getUint16(26, true) & 0x3fff,
      height: v.getUint16(28, true) & 0x3fff,
      orientation: 1,
    };
  if (chunk === 'VP8L') {
    // Signature 0x2f, then width-1 and height-1 in 14 bits each, little-endian.
    const bits = v.getUint32(21, true);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1, orientation: 1 };
  }
  if (chunk !== 'VP8X') return undefined;
  const u24 = (at: number) => head[at]! | (head[at + 1]! << 8) | (head[at + 2]! << 16);
  const size: Size = { format: 'webp', width: u24(24) + 1, height: u24(27) + 1, orientation: 1 };
  // Flag 0x08: an EXIF chunk follows the image data; walk the chunks to it.
  if (head[20]! & 0x08) {
    let at = 12;
    while (at + 8 <= source.size) {
      const h = await source.read(at, 8);
      if (h.length < 8) break;
      const length = view(h).getUint32(4, true);
      if (ascii(h, 0, 4) === 'EXIF') {
        const exif = await source.read(at + 8, Math.min(length, 64 * 1024));
        // Some writers keep JPEG's "Exif\0\0" prefix inside the chunk.
        const tiff = ascii(exif, 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif;
        size.orientation = exifOrientation(tiff) ?? 1;
        break;
      }
      at += 8 + length + (length % 2);
    }
  }
  return size;
}
