// A stored image (or a video's frame) as a small JPEG: at most PREVIEW_EDGE pixels on its long
// side and PREVIEW_MAX_BYTES, turned upright by its EXIF orientation. sharp does the decoding and
// encoding (libvips, shipped prebuilt inside its npm packages for each platform: nothing is
// compiled at install); it is required on first use, so only a server that makes previews loads it.
import { createRequire } from 'node:module';
import type Sharp from 'sharp';

/** Pixels on the long side: a browse card is ~200 CSS px wide, twice that for a dense screen. */
export const PREVIEW_EDGE = 400;
/** The most a preview may weigh (issue 39: a grid card ≤ 60 KB). */
export const PREVIEW_MAX_BYTES = 60 * 1024;
/** Images with more pixels than this are not decoded (a decompression bomb); they get no preview. */
const MAX_INPUT_PIXELS = 100_000_000;

let loaded: typeof Sharp | undefined;
/** sharp, loaded on first use. */
export function sharp(): typeof Sharp {
  loaded ??= createRequire(import.meta.url)('sharp') as typeof Sharp;
  return loaded;
}

/** The preview of an image's bytes; throws when they do not decode, or no quality fits the budget. */
export async function jpegPreview(input: Buffer): Promise<Buffer> {
  for (const quality of [75, 60, 45, 30]) {
    const out = await sharp()(input, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(PREVIEW_EDGE, PREVIEW_EDGE, { fit: 'inside', withoutEnlargement: true })
      // Transparency (PNG, WebP) on white, as a page's background shows it.
      .flatten({ background: '#ffffff' })
      .jpeg({ quality, mozjpeg: true })
      .toBuffer();
    if (out.length <= PREVIEW_MAX_BYTES) return out;
  }
  throw new Error(`no JPEG of ${PREVIEW_EDGE} px fits in ${PREVIEW_MAX_BYTES} bytes`);
}

/** How much picture a frame has: its mean luminance (0–255) and the spread of it. */
export async function pictureOf(image: Buffer): Promise<{ mean: number; spread: number }> {
  const stats = await sharp()(image).greyscale().stats();
  const grey = stats.channels[0]!;
  return { mean: grey.mean, spread: grey.stdev };
}

/** A frame that is black, or one flat colour (a fade, a title card's background): not a poster. */
export function isBlank(p: { mean: number; spread: number }): boolean {
  return p.mean < 16 || p.spread < 4;
}
