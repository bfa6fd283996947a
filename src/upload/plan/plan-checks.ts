// The rules of src/rules/rules.ts applied to planned groups of files: which type a video
// becomes, and every way a video, a carousel or a thumbnail can break the one rules table
// (src/rules/rules.ts). Each problem says what is wrong and what to do.
import type { InspectedFile } from '../../media/inspect.js';
import {
  FORMATS,
  TYPE_RULES,
  THUMBNAIL_RULE,
  checkDuration,
  checkFile,
  checkThumbnail,
  formatBytesExact,
  type ContentType,
  type Violation,
} from '../../rules/rules.js';
import type { PlanProblem } from '../../rules/problem.js';

/** How hints name a type choice: `--type longform` for flags, `"type": "longform"` in a manifest. */
export type TypeHint = (type: ContentType) => string;
export const flagTypeHint: TypeHint = (type) => `use --type ${type}`;
export const manifestTypeHint: TypeHint = (type) => `set "type": "${type}" in the manifest`;

const shortform = TYPE_RULES.shortform;
const extensionsOf = (type: ContentType) => TYPE_RULES[type].formats.map((f) => FORMATS[f].extensions[0]).join(', ');

/** shortform when 3–90 s and ≤ 300 MB, else longform (TYPE_RULES.shortform in src/rules/rules.ts). */
export function autoVideoType(file: InspectedFile): ContentType {
  const d = file.durationSeconds;
  const fits =
    d !== undefined && d >= shortform.duration.min && d <= shortform.duration.max && file.size <= shortform.maxBytes;
  return fits ? 'shortform' : 'longform';
}

/** A size to the byte, for a problem's `actual`: "20,971,521 bytes". */
function exactSize(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** Seconds as people read them: 94.2 s, 5 s. */
export function formatSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(2))} s`;
}

/** A video's type (the explicit one, else chosen by the rules) and what is wrong with it. */
export function planVideo(
  file: InspectedFile,
  shown: string,
  explicit: ContentType | undefined,
  typeHint: TypeHint,
): { type: ContentType; problems: PlanProblem[] } {
  if (explicit === 'carousel') {
    return {
      type: 'carousel',
      problems: [
        {
          file: shown,
          rule: 'type',
          actual: 'video',
          message: `is a video; carousel takes images (${extensionsOf('carousel')})`,
          hint: 'leave out the carousel type for videos',
        },
      ],
    };
  }
  const type = explicit ?? autoVideoType(file);
  const violations: Violation[] = [];
  // An empty or unrecognised file was already reported by inspection; say it once.
  if (file.contentType && file.size > 0) violations.push(...checkFile(type, file.contentType, file.size));
  if (file.durationSeconds !== undefined) violations.push(...checkDuration(type, file.durationSeconds));
  return { type, problems: violations.map((v) => videoProblem(v, file, shown, type, typeHint)) };
}

function videoProblem(
  v: Violation,
  file: InspectedFile,
  shown: string,
  type: ContentType,
  typeHint: TypeHint,
): PlanProblem {
  const longform = TYPE_RULES.longform;
  if (v.rule === 'size') {
    const fitsLongform = type === 'shortform' && file.size <= longform.maxBytes;
    const hint = fitsLongform
      ? `${typeHint('longform')} (up to ${formatBytesExact(longform.maxBytes)})`
      : `compress or split it to ${formatBytesExact(TYPE_RULES[type].maxBytes)} or less`;
    return { file: shown, rule: 'size', actual: exactSize(file.size), message: v.message, hint };
  }
  if (v.rule === 'duration') {
    const d = file.durationSeconds ?? 0;
    const hint = !(d > 0) ? 'the movie header is damaged; export the video again' : typeHint('longform');
    return { file: shown, rule: 'duration', actual: formatSeconds(d), message: v.message, hint };
  }
  return { file: shown, rule: v.rule, actual: String(v.actual), message: v.message };
}

/** Problems of one image in a carousel: wrong explicit type, format, size. */
export function checkImage(
  file: InspectedFile,
  shown: string,
  explicit: ContentType | undefined,
  typeHint: TypeHint,
): PlanProblem[] {
  if (explicit && explicit !== 'carousel') {
    return [
      {
        file: shown,
        rule: 'type',
        actual: 'image',
        message: `is an image; ${explicit} takes videos (${extensionsOf(explicit)})`,
        hint: `${typeHint('carousel')}, or leave the type out`,
      },
    ];
  }
  if (!file.contentType || file.size === 0) return [];
  return checkFile('carousel', file.contentType, file.size).map((v) =>
    v.rule === 'size'
      ? {
          file: shown,
          rule: 'size',
          actual: exactSize(file.size),
          message: v.message,
          hint: `resize or compress it to ${formatBytesExact(TYPE_RULES.carousel.maxBytes)} or less`,
        }
      : { file: shown, rule: v.rule, actual: String(v.actual), message: v.message },
  );
}

/** How a carousel was asked for: by folder, by --carousel, by --to, by a manifest item. */
export type CarouselOrigin = 'folder' | 'flag' | 'to' | 'manifest';

/** A carousel of `n` images has 2–10; appending with --to needs 1–10 (the rest is checked by the engine). */
export function checkCarouselCount(
  n: number,
  shownFirst: string,
  source: string,
  origin: CarouselOrigin,
): PlanProblem[] {
  const { minFiles, maxFiles } = TYPE_RULES.carousel;
  if (origin !== 'to' && n < minFiles) {
    const from = origin === 'folder' ? ` from ${source}` : '';
    return [
      {
        file: shownFirst,
        rule: 'carousel',
        actual: `${n} image`,
        message: `a carousel needs at least ${minFiles} images; got only ${n}${from}`,
        hint: 'add another image, or append it to an existing carousel with --to <id>',
      },
    ];
  }
  if (n > maxFiles) {
    const hint =
      origin === 'folder'
        ? `add --split to make carousels of at most ${maxFiles} from them, or split them into folders of at most ${maxFiles} (each folder becomes its own carousel)`
        : origin === 'to'
          ? `append at most ${maxFiles} images, fewer if the carousel already has some`
          : `give at most ${maxFiles} images per carousel${origin === 'flag' ? ', or add --split' : ''}`;
    return [
      {
        file: source,
        rule: 'carousel',
        actual: `${n} images`,
        message: `${n} images is over carousel's maximum of ${maxFiles}`,
        hint,
      },
    ];
  }
  return [];
}

/** A thumbnail must be a jpg, png or webp of at most 20 MB (checked with the table's checkThumbnail). */
export function checkThumbnailFile(file: InspectedFile, shown: string): PlanProblem[] {
  // Missing, empty or unrecognised: inspection already said so.
  if (file.problems.length > 0) return file.problems;
  if (!file.contentType) return [];
  const allowed = THUMBNAIL_RULE.formats.map((f) => FORMATS[f].extensions[0]).join(', ');
  return checkThumbnail(file.contentType, file.size).map((v) => ({
    file: shown,
    rule: 'thumbnail',
    actual: v.rule === 'size' ? exactSize(file.size) : String(v.actual),
    message: v.message,
    hint: `use a ${allowed} image of ${formatBytesExact(THUMBNAIL_RULE.maxBytes)} or less`,
  }));
}
