// The real format of a file from its first bytes (magic numbers). Used by the CLI before an
// upload and by the server at complete. Written here rather than taken from `file-type`
// because file-type 22 needs Node 22, and we need five formats, not four hundred.
import type { Format } from '../rules/rules.js';

/** How many leading bytes `sniff` needs to decide. */
export const SNIFF_BYTES = 32;

// QuickTime files written before the ftyp box existed start straight with one of these atoms.
const QUICKTIME_LEAD_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
// ftyp major brands of HEIF (HEIC) and AVIF images and image sequences.
export const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

function ascii(buf: Uint8Array, start: number, end: number): string {
  return Buffer.from(buf.subarray(start, end)).toString('latin1');
}

/** The format the bytes are in, or undefined when they are none of the allowed formats. */
export function sniff(head: Uint8Array): Format | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && ascii(head, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    // 'qt  ' is Apple's QuickTime brand. HEIF/AVIF still images share the box structure but are
    // not videos. Any other brand (isom, mp42, Sony's XAVC, Canon's CAEP, …) is an ISO base
    // media file: whether it holds a video is for the box walk (probeVideo) to say, not the brand.
    if (brand === 'qt  ') return 'mov';
    if (IMAGE_BRANDS.has(brand)) return undefined;
    return 'mp4';
  }
  if (head.length >= 8 && QUICKTIME_LEAD_ATOMS.has(ascii(head, 4, 8))) return 'mov';
  return undefined;
}

/**
 * The unsupported format the bytes are in (a key of UNSUPPORTED_FORMATS: 'heic', 'avif',
 * 'gif', 'mkv', 'webm', 'avi', 'tiff', 'bmp'), for a message that says what to convert to.
 */
export function sniffUnsupported(head: Uint8Array): string | undefined {
  if (head.length >= 6 && /^GIF8[79]a$/.test(ascii(head, 0, 6))) return 'gif';
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (brand === 'avif' || brand === 'avis') return 'avif';
    if (IMAGE_BRANDS.has(brand)) return 'heic';
  }
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    return ascii(head, 0, head.length).includes('webm') ? 'webm' : 'mkv';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'AVI ') return 'avi';
  if (head.length >= 4 && (ascii(head, 0, 4) === 'II*\0' || ascii(head, 0, 4) === 'MM\0*')) return 'tiff';
  // 'BM', the file size, then two reserved 16-bit fields that are always zero.
  if (head.length >= 10 && ascii(head, 0, 2) === 'BM' && head.subarray(6, 10).every((b) => b === 0)) return 'bmp';
  return undefined;
}

/** A human name for what the bytes are, for messages like "photo.jpg contains PNG data". */
export function describeFormat(format: Format | undefined): string {
  switch (format) {
    case 'jpeg':
      return 'JPEG';
    case 'png':
      return 'PNG';
    case 'webp':
      return 'WebP';
    case 'mp4':
      return 'MP4';
    case 'mov':
      return 'QuickTime (MOV)';
    default:
      return 'unrecognised';
  }
}
