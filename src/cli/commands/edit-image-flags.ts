// The pure side of edit's image flags (--order, --remove-image, --replace-image): which image a
// position (counted from 1, as people count and as `show` prints it) or a file name means, the
// order a partial list makes, and the change to ask for. No I/O here; tests are tables.
import type { CarouselFile } from '../../api/schemas.js';
import { TYPE_RULES } from '../../rules/rules.js';
import { UsageError } from '../errors.js';
import type { ShownFile } from '../output/item.js';

export interface ImageFlags {
  /** "3,1,2" or "c.jpg,a.jpg": positions from 1 or file names; the images named go first, in that order. */
  order?: string;
  /** A position from 1, or a file name. */
  removeImage?: string;
  /** [position or name, the new image's path]. */
  replaceImage?: string[];
}

/** An image of the carousel and its position, counted from 1. */
export interface Placed {
  position: number;
  file: CarouselFile;
}

export type ImageChange =
  /** Every image, in the new order. */
  | { kind: 'order'; files: CarouselFile[] }
  | ({ kind: 'remove' } & Placed)
  | ({ kind: 'replace'; path: string } & Placed);

const FLAG_NAMES: Record<keyof ImageFlags, string> = {
  order: '--order',
  removeImage: '--remove-image',
  replaceImage: '--replace-image',
};

/** The image flags given, by name (--order, …). */
export function imageFlagsGiven(f: ImageFlags): string[] {
  return (Object.keys(FLAG_NAMES) as Array<keyof ImageFlags>)
    .filter((k) => f[k] !== undefined)
    .map((k) => FLAG_NAMES[k]);
}

/** "1 a.jpg, 2 b.jpg": the images as the flags name them, for messages. */
export function listImages(files: readonly CarouselFile[]): string {
  return files.map((f, i) => `${i + 1} ${f.fileName ?? f.id}`).join(', ');
}

/** Which image a position (from 1) or a file name means; usage errors say what there is. */
export function findImage(token: string, files: readonly CarouselFile[], flag: string): Placed {
  const t = token.trim();
  const there = `the carousel's images: ${listImages(files)}`;
  if (t === '') throw new UsageError(`${flag} has an empty entry.`, `Give positions from 1 or file names; ${there}.`);
  if (/^\d+$/.test(t)) {
    const position = Number(t);
    if (position < 1 || position > files.length)
      throw new UsageError(
        `${flag}: position ${t} is out of range; the carousel has ${files.length} images (1–${files.length}).`,
        `Positions count from 1, as contentlib show prints them; ${there}.`,
      );
    return { position, file: files[position - 1]! };
  }
  // The exact name first; a name that differs only in case is accepted when it is the only one.
  const exact = matches(files, (name) => name === t);
  const found = exact.length > 0 ? exact : matches(files, (name) => name.toLowerCase() === t.toLowerCase());
  if (found.length === 0)
    throw new UsageError(`${flag}: no image is named "${t}".`, `Give a position from 1 or a file name; ${there}.`);
  if (found.length > 1)
    throw new UsageError(
      `${flag}: ${found.length} images are named "${t}" (positions ${found.map((p) => p.position).join(' and ')}).`,
      'Give the position instead.',
    );
  return found[0]!;
}

function matches(files: readonly CarouselFile[], test: (name: string) => boolean): Placed[] {
  return files.flatMap((file, i) =>
    file.fileName !== undefined && test(file.fileName) ? [{ position: i + 1, file }] : [],
  );
}

/**
 * The order `--order` asks for: the images it names first, in the order named, then the others
 * as they were. Naming one image twice is a usage error.
 */
export function newOrder(text: string, files: readonly CarouselFile[]): CarouselFile[] {
  const named = text.split(',').map((token) => ({ token: token.trim(), ...findImage(token, files, '--order') }));
  const seen = new Map<number, string>();
  for (const { token, position } of named) {
    const first = seen.get(position);
    if (first !== undefined)
      throw new UsageError(
        `--order names image ${position} twice${first === token ? '' : ` (as ${first} and as ${token})`}.`,
        `Name each image once; the ones left out keep their order after those named. The carousel's images: ${listImages(files)}.`,
      );
    seen.set(position, token);
  }
  const first = named.map((n) => n.file);
  return [...first, ...files.filter((f) => !first.includes(f))];
}

/** The one change the flags ask of these images (in their current order). */
export function planImageChange(f: ImageFlags, files: readonly CarouselFile[], id = 'ID'): ImageChange {
  if (f.order !== undefined) return { kind: 'order', files: newOrder(f.order, files) };
  if (f.removeImage !== undefined) {
    const placed = findImage(f.removeImage, files, '--remove-image');
    const min = TYPE_RULES.carousel.minFiles;
    if (files.length <= min)
      throw new UsageError(
        `The carousel has ${files.length} images, and a carousel keeps at least ${min}; nothing was removed.`,
        `Replace the image instead (--replace-image ${placed.position} FILE), add one first (contentlib upload --to ${id} FILE), or delete the whole carousel (contentlib rm ${id}).`,
      );
    return { kind: 'remove', ...placed };
  }
  const [which, path] = f.replaceImage ?? [];
  if (which === undefined || path === undefined || (f.replaceImage?.length ?? 0) !== 2)
    throw new UsageError(
      '--replace-image takes two values: which image (a position from 1 or a file name) and the new image file.',
      'For example: contentlib edit ID --replace-image 2 better.jpg',
    );
  return { kind: 'replace', path, ...findImage(which, files, '--replace-image') };
}

/** The images as the change will leave them; the new image of a replace is `replacement`. */
export function imagesAfter(change: ImageChange, files: readonly CarouselFile[], replacement?: ShownFile): ShownFile[] {
  const after: ShownFile[] =
    change.kind === 'order'
      ? change.files
      : change.kind === 'remove'
        ? files.filter((f) => f !== change.file)
        : files.map((f) => (f === change.file && replacement ? replacement : f));
  return after.map((f, i) => ({ ...f, sortOrder: i }));
}

/** Whether an order is the one the images have: then there is nothing to send. */
export function sameOrder(change: ImageChange, files: readonly CarouselFile[]): boolean {
  return change.kind === 'order' && change.files.every((f, i) => f === files[i] && f.sortOrder === i);
}

/** One line on what the change does (or did): "Moved to the order 3,1,2 (old positions)." */
export function describeChange(change: ImageChange, files: readonly CarouselFile[], newName?: string): string {
  switch (change.kind) {
    case 'order':
      return `the images in the order ${change.files.map((f) => files.indexOf(f) + 1).join(',')} (their positions before)`;
    case 'remove': {
      const after = files.length - change.position;
      return `image ${change.position} (${change.file.fileName ?? change.file.id}) removed${after > 0 ? `; the ${after === 1 ? 'image' : `${after} images`} after it moved up` : ''}`;
    }
    case 'replace':
      return `image ${change.position} (${change.file.fileName ?? change.file.id}) replaced by ${newName ?? change.path}`;
  }
}
