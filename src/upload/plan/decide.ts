// The decisions of planning an upload, as one pure function: what scan.ts found on disk + the
// options → the items to create, every file checked against the one rules table
// (src/rules/rules.ts), every problem listed at once. No disk, no clock: its tests are tables
// (test/upload/decide.test.ts).
//
// Grouping: each video is one item; the images of one directory are one carousel, in natural
// name order (2.jpg before 10.jpg); subdirectories are each their own group; `--carousel` puts
// all given images in one carousel; `--to <id>` appends them to an existing one. Metadata:
// flags < sidecar (`clip.mp4.json`, `carousel.json` or `<folder>.json`) < manifest item, merged
// field by field.
import type { PlatformId } from '../../rules/platforms.js';
import { basename, dirname } from 'node:path';
import * as z from 'zod';
import type { ItemMetadata } from '../../api/schemas.js';
import type { InspectedFile } from '../../media/inspect.js';
import {
  FORMATS,
  METADATA_LIMITS,
  TYPE_RULES,
  fitsFile,
  normalizeHashtags,
  type ContentType,
  type Media,
} from '../../rules/rules.js';
import { needsEscape } from '../../text/escape-name.js';
import {
  checkCarouselCount,
  checkImage,
  checkThumbnailFile,
  flagTypeHint,
  manifestTypeHint,
  planVideo,
  type CarouselOrigin,
  type TypeHint,
} from './plan-checks.js';
import { shownPath, type Skipped } from './plan-inputs.js';
import { checkMetadata, clean, hasMetadata, mergeMetadata } from './plan-metadata.js';
import { carouselSidecarNames, videoSidecarName } from '../../rules/folder-names.js';
import type { PlanProblem } from '../../rules/problem.js';
import type { Scanned, ScannedFile, ScannedManifestItem } from './scan.js';
import type { FileTable } from './file-table.js';
import { strictProblems } from './skips.js';

export interface PlanOptions {
  /** --type: every file must fit this type (checked strictly); otherwise chosen per file. */
  type?: ContentType;
  /** --carousel: all given images become one carousel, wherever they are. */
  carousel?: boolean;
  /** --to <id>: append the images to this existing carousel. */
  to?: string;
  /** From --title, --description, --hashtags, --status, --platform. */
  metadata?: ItemMetadata;
  /** --manifest FILE (relative to cwd). */
  manifest?: string;
  /**
   * The manifest is an export folder's `contentlib.json` (`upload DIR`): every path it names,
   * and every sidecar read beside them, must stay inside its folder (src/fs/confine.ts).
   */
  manifestConfined?: boolean;
  /** --thumbnail IMG: only with exactly one video item. */
  thumbnail?: string;
  /** --strict: a skipped media file (HEIC, GIF, a hidden video, a link outside…) is a problem. */
  strict?: boolean;
  /**
   * --split: a folder of more images than a carousel takes (or --carousel's) becomes several
   * carousels of at most the maximum, in order, as even as can be (11 images: 6 and 5).
   */
  split?: boolean;
  /** --skip-invalid: leave out what breaks a rule and plan the rest (salvage.ts); read by buildPlan. */
  skipInvalid?: boolean;
  /** --for: the platforms every file must suit (platform-check.ts); read by buildPlan. */
  for?: readonly PlatformId[];
}

/**
 * An item of a plan. A plan's items are PackedItems, whose `files`, and for a folder's carousel
 * `source` and `metadata`, are made again when read: copy one by naming its fields, not by
 * spreading it (a spread copies own fields only, and those are not).
 */
export interface PlannedItem {
  type: ContentType;
  /**
   * One video, or a carousel's images in upload order (natural name order, or the manifest's).
   * A plan's items make these records again at each read (PackedItem): read it once per use.
   */
  readonly files: InspectedFile[];
  /** Set with --to (or a manifest item's "to"): append to this carousel instead of creating one. */
  contentItemId?: string;
  /** flags < sidecar < manifest, merged; empty with --to. */
  metadata: ItemMetadata;
  thumbnail?: InspectedFile;
  /** The file, directory or manifest item it came from, as the user would name it. */
  source: string;
}

/**
 * An item as planning makes it: its files as ids in the scan's table (./file-table.ts), their
 * records made again each time `files` is read and dropped by the reader, so that a plan of
 * 100,000 files holds no record of a file for the whole run. A folder's carousel that nothing
 * else names (the common case of a bulk upload) keeps no source or metadata either: both are
 * made again from its folder when read (`folderItem`), as planning made them. Kept, they were
 * a path, a title and an object per item, ~1.3 MB at 10,000 folders (bench/notes.md, issue 41).
 */
export class PackedItem implements PlannedItem {
  type: ContentType;
  contentItemId?: string;
  thumbnail?: InspectedFile;
  readonly #table: FileTable;
  /**
   * The files' ids: a run of consecutive ids (a folder read in order) as its first and count,
   * fields of the item's own (10,000 items: ~0.3 MB less than an object each); others as a list.
   */
  readonly #first: number;
  readonly #count: number;
  readonly #ids: readonly number[] | undefined;
  /** Undefined while they are what the item's folder makes (folderItem). */
  #metadata: ItemMetadata | undefined;
  #source: string | undefined;

  constructor(
    table: FileTable,
    ids: readonly number[],
    fields: Omit<PlannedItem, 'files' | 'thumbnail' | 'contentItemId'> & { contentItemId?: string | undefined },
    /** The item is its folder's carousel: its source and metadata may be made again from it. */
    ofFolder = false,
  ) {
    this.#table = table;
    const run = isRun(ids);
    this.#first = run ? (ids[0] ?? 0) : 0;
    this.#count = ids.length;
    this.#ids = run ? undefined : ids;
    this.type = fields.type;
    const again = ofFolder && ids.length > 0 ? folderItem(table, ids[0]!) : undefined;
    this.#metadata = again && sameMetadata(fields.metadata, again.metadata) ? undefined : fields.metadata;
    this.#source = again && fields.source === again.source ? undefined : fields.source;
    if (fields.contentItemId !== undefined) this.contentItemId = fields.contentItemId;
  }

  /** How many files, without making their records (`files` does). */
  get fileCount(): number {
    return this.#count;
  }

  get files(): InspectedFile[] {
    if (this.#ids) return this.#ids.map((id) => this.#table.file(id));
    return Array.from({ length: this.#count }, (_, k) => this.#table.file(this.#first + k));
  }

  /** A fresh object when made again from the folder: change it through the setter. */
  get metadata(): ItemMetadata {
    return this.#metadata ?? folderItem(this.#table, this.#ids?.[0] ?? this.#first).metadata;
  }

  set metadata(metadata: ItemMetadata) {
    this.#metadata = metadata;
  }

  get source(): string {
    return this.#source ?? folderItem(this.#table, this.#ids?.[0] ?? this.#first).source;
  }

  set source(source: string) {
    this.#source = source;
  }
}

/**
 * What planning gives the carousel of the folder of file `first` when nothing else names it: the
 * folder as messages show it, and a title after the folder's name (planGroup).
 */
function folderItem(table: FileTable, first: number): { source: string; metadata: ItemMetadata } {
  const title = titleOfFolder(table.folder(first));
  return { source: table.shownFolder(first), metadata: title ? { title } : {} };
}

/** Whether two metadata hold the same fields with the same values (strings only: a title). */
function sameMetadata(a: ItemMetadata, b: ItemMetadata): boolean {
  const keys = Object.keys(a) as (keyof ItemMetadata)[];
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => typeof a[k] === 'string' && a[k] === b[k]);
}

/** Whether the ids are consecutive, ascending. */
function isRun(ids: readonly number[]): boolean {
  for (let k = 1; k < ids.length; k++) if (ids[k] !== ids[0]! + k) return false;
  return true;
}

/** A file ready to send: its format is known from its bytes. */
export type PlannedFile = InspectedFile & { contentType: string };

/** An item of a plan without problems: every file's format known. */
export type ReadyItem = Omit<PlannedItem, 'files' | 'thumbnail'> & { files: PlannedFile[]; thumbnail?: PlannedFile };

/**
 * The items of a plan that may be sent. A file whose format is not known is always one of the
 * plan's problems (src/media/inspect.ts), and a plan with problems is never sent: this is where
 * that is checked once, so that what is sent is typed with its contentType.
 */
export function readyItems(plan: UploadPlan): ReadyItem[] {
  if (plan.problems.length > 0) throw new Error('a plan with problems cannot be sent');
  for (const item of plan.items)
    for (const file of item.thumbnail ? [...item.files, item.thumbnail] : item.files)
      if (file.contentType === undefined)
        throw new Error(`${file.name}: its format is not known, yet no problem says so`);
  // Checked just above; the same objects, not copies: a plan may hold 100,000 files.
  return plan.items as ReadyItem[];
}

export interface UploadPlan {
  items: PlannedItem[];
  /** Anything here stops the upload (exit 2); all are reported at once. */
  problems: PlanProblem[];
  /** Files under the named folders that are not uploaded, each with its kind, reason and hint (skips.ts). */
  skipped: Skipped[];
  /** Worth saying, does not stop the upload ("photo.jpg: the name says JPEG but the file contains PNG data"). */
  warnings: PlanProblem[];
  /** What the plan cannot check by itself and the engine will (e.g. --to's current image count). */
  notes: string[];
  /** --skip-invalid: what was left out of the plan, and why (salvage.ts); empty otherwise. */
  leftOut: LeftOut[];
  /**
   * The files are on a network share or a FUSE mount (src/fs/stalling-fs.ts, asked once while
   * scanning): sending reads them only through the thread pool too.
   */
  stalls?: true;
}

/** Files left out of a plan with --skip-invalid: the file or item they were, and the problems that left them out. */
export interface LeftOut {
  /** The file, or the item's source, as messages show it. */
  source: string;
  /** Absolute paths of the files left out. */
  paths: string[];
  problems: PlanProblem[];
}

/** Files bound to become one item, before the rules are applied. */
interface Group {
  kind: Media;
  /** Ids in the scan's table. */
  files: number[];
  source: string;
  origin: CarouselOrigin | 'video';
  explicitType?: ContentType;
  typeHint: TypeHint;
  to?: string;
  thumbnail?: ScannedFile;
  manifestMetadata?: ItemMetadata;
  /** A video's id, whose sidecar (`clip.mp4.json`) to look for. */
  sidecarOfVideo?: number;
  /** The folder whose carousel sidecars (`carousel.json`, `<folder>.json`) to look for. */
  sidecarFolder?: string;
  /** --split: this is part k of n of its folder's images. */
  part?: [number, number];
}

const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export function decide(scanned: Scanned, inputs: readonly string[], options: PlanOptions): UploadPlan {
  const plan: UploadPlan = { items: [], problems: [], skipped: [], warnings: [], notes: [], leftOut: [] };
  const flags = clean(options.metadata ?? {});
  if (flags.hashtags) flags.hashtags = normalizeHashtags(flags.hashtags);
  plan.problems.push(...checkOptions(inputs, options, flags));
  plan.problems.push(...scanned.problems);
  plan.skipped.push(...scanned.skipped);
  const groups = scanned.manifest
    ? groupsFromManifest(scanned.manifest, scanned.table, options, scanned.cwd, plan)
    : groupsFromInputs(scanned.files, scanned.table, options, plan);

  let titlesFromFlags = 0;
  const sidecarsRead = new Set<string>();
  // The folders holding a sidecar: a group in any other has none, and its sidecars' names are not made.
  const sidecarFolders = new Set(Object.keys(scanned.sidecars).map((path) => dirname(path)));
  for (const group of groups) {
    const index = plan.items.length;
    const before = plan.problems.length;
    const { item, titleFromFlags } = planGroup(group, flags, scanned, plan, { read: sidecarsRead, sidecarFolders });
    plan.items.push(item);
    // What the rules found wrong with this item: about one file (its path), or the item (its index).
    for (let k = before; k < plan.problems.length; k++) {
      const p = plan.problems[k]!;
      if (p.path === undefined) plan.problems[k] = { ...p, item: index };
    }
    if (titleFromFlags) titlesFromFlags++;
  }
  if (titlesFromFlags > 1) {
    plan.problems.push({
      file: '--title',
      rule: 'usage',
      actual: `${titlesFromFlags} items`,
      message: `would give ${titlesFromFlags} items the same title`,
      hint: 'upload them one at a time, or give each its title in a sidecar (<file>.json, carousel.json) or a --manifest',
    });
  }
  if (scanned.thumbnail) planThumbnailFlag(scanned.thumbnail, plan);
  // A .json read as a sidecar was used, not skipped; any other is reported.
  plan.skipped = plan.skipped.filter((s) => !(s.kind === 'sidecar' && sidecarsRead.has(s.path)));
  if (options.strict) plan.problems.push(...strictProblems(plan.skipped));
  if (plan.items.length === 0 && plan.problems.length === 0) {
    plan.problems.push({
      file: inputs.join(' ') || '.',
      rule: 'usage',
      actual: '0 files',
      message: 'nothing to upload: no video or image was found',
      hint: 'name mp4, mov, jpg, png or webp files, folders holding them, or a glob',
    });
  }
  return plan;
}

function checkOptions(inputs: readonly string[], options: PlanOptions, flags: ItemMetadata): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const usage = (file: string, actual: string, message: string, hint: string) =>
    problems.push({ file, rule: 'usage', actual, message, hint });
  if (options.manifest && inputs.length > 0)
    usage(
      '--manifest',
      `${inputs.length} paths`,
      'a manifest lists every file; paths were given too',
      'put the files in the manifest, or leave out --manifest',
    );
  if (options.manifest && options.thumbnail)
    usage(
      '--thumbnail',
      options.thumbnail,
      'does not combine with --manifest',
      'give the video\'s "thumbnail" in its manifest item',
    );
  if (options.to !== undefined) {
    if (!z.uuid().safeParse(options.to).success)
      usage(
        '--to',
        options.to,
        'is not a content item id (a UUID)',
        "find the carousel's id with: contentlib ls --type carousel",
      );
    if (options.type && options.type !== 'carousel')
      usage(
        '--type',
        options.type,
        '--to appends images to a carousel',
        'leave out --type, or upload videos in a separate command',
      );
    if (hasMetadata(flags))
      usage(
        '--to',
        options.to,
        'metadata flags do not apply when appending to an existing carousel',
        'change its metadata with: contentlib edit <id>',
      );
  }
  if (hasMetadata(flags)) problems.push(...checkMetadata(flags, 'metadata flags'));
  return problems;
}

/** What inspection found wrong with the files, and what it noticed, in their order. */
function reportInspected(files: readonly number[], table: FileTable, plan: UploadPlan): void {
  // Indexed loops here and below: decide runs once, mostly before V8 optimises it, and a for…of
  // not optimised makes an iterator result per file.
  for (let k = 0; k < files.length; k++) {
    const id = files[k]!;
    // Most files have neither: spreading an empty list still makes an iterator.
    const problems = table.problems(id);
    if (problems.length > 0) plan.problems.push(...problems);
    const warnings = table.warnings(id);
    if (warnings.length > 0) plan.warnings.push(...warnings);
  }
}

function groupsFromInputs(files: readonly number[], table: FileTable, options: PlanOptions, plan: UploadPlan): Group[] {
  reportInspected(files, table, plan);
  const groups: Group[] = [];
  const carousels = new Map<string, Group>();
  for (let k = 0; k < files.length; k++) {
    const id = files[k]!;
    const media = placeableMedia(table, id);
    if (media === 'video') {
      if (options.to) {
        plan.problems.push({
          file: table.shown(id),
          rule: 'usage',
          actual: 'video',
          message: '--to appends images to a carousel; this is a video',
          hint: 'upload videos in a separate command',
        });
        continue;
      }
      groups.push({
        kind: 'video',
        files: [id],
        source: table.shown(id),
        origin: 'video',
        explicitType: options.type,
        typeHint: flagTypeHint,
        sidecarOfVideo: id,
      });
    } else if (media === 'image') {
      const oneCarousel = options.to !== undefined || options.carousel === true;
      const key = oneCarousel ? '' : table.folder(id);
      let group = carousels.get(key);
      if (!group) {
        const origin: CarouselOrigin = options.to !== undefined ? 'to' : oneCarousel ? 'flag' : 'folder';
        group = {
          kind: 'image',
          files: [],
          source: '',
          origin,
          explicitType: options.type,
          typeHint: flagTypeHint,
          to: options.to,
        };
        carousels.set(key, group);
        groups.push(group);
      }
      group.files.push(id);
    }
  }
  for (const group of carousels.values()) finishFolderCarousel(group, table, options);
  return options.split ? groups.flatMap(splitGroup) : groups;
}

/**
 * --split: a carousel group over the maximum as several, in its order, as even as can be (23
 * images: 8, 8 and 7; never a last carousel of one). Each keeps the folder's sidecar and is
 * titled after the folder with its part: "Trip (2/3)". Appending (--to) is never split.
 */
function splitGroup(group: Group): Group[] {
  const max = TYPE_RULES.carousel.maxFiles;
  if (group.kind !== 'image' || group.origin === 'to' || group.files.length <= max) return [group];
  const parts = Math.ceil(group.files.length / max);
  const out: Group[] = [];
  let from = 0;
  for (let k = 0; k < parts; k++) {
    const size = Math.ceil((group.files.length - from) / (parts - k));
    out.push({ ...group, files: group.files.slice(from, from + size), source: group.source, part: [k + 1, parts] });
    from += size;
  }
  return out;
}

/** Natural name order, the source's name, and where its sidecar may be. */
function finishFolderCarousel(group: Group, table: FileTable, options: PlanOptions): void {
  sortByName(group.files, table);
  const first = group.files[0]!;
  const oneFolder = inOneFolder(group.files, table);
  if (oneFolder) group.source = table.shownFolder(first);
  else group.source = group.origin === 'to' ? `--to ${options.to}` : '--carousel';
  // Appending leaves the carousel's metadata alone, so its sidecar is not read.
  if (oneFolder && group.origin !== 'to') group.sidecarFolder = table.folder(first);
}

/** Whether the files are all in one folder (compared as the table's one string per folder). */
function inOneFolder(ids: readonly number[], table: FileTable): boolean {
  const folder = ids.length > 0 ? table.folder(ids[0]!) : undefined;
  for (let k = 1; k < ids.length; k++) if (table.folder(ids[k]!) !== folder) return false;
  return folder !== undefined;
}

/** A group's names while it is sorted: one list reused for every group, as a plan sorts one at a time. */
const sortNames: string[] = [];
/** Groups up to this size are sorted in place by insertion, which makes nothing; larger ones by Array#sort. */
const INSERTION_MAX = 32;

/**
 * Sorts the ids in natural name order; paths only for a tie (the same name in two folders:
 * --carousel, --to). Stable either way, so both ways give the same order.
 */
function sortByName(ids: number[], table: FileTable): void {
  const order = (a: number, b: number, na: string, nb: string): number => {
    const byName = naturalOrder.compare(na, nb);
    if (byName !== 0) return byName;
    const [pa, pb] = [table.path(a), table.path(b)];
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
  if (ids.length > INSERTION_MAX) {
    // Names read once each, not once per comparison.
    const names = new Map(ids.map((id) => [id, table.name(id)]));
    ids.sort((a, b) => order(a, b, names.get(a)!, names.get(b)!));
    return;
  }
  sortNames.length = 0;
  for (let k = 0; k < ids.length; k++) sortNames.push(table.name(ids[k]!));
  for (let k = 1; k < ids.length; k++) {
    const id = ids[k]!;
    const name = sortNames[k]!;
    let j = k;
    for (; j > 0 && order(ids[j - 1]!, id, sortNames[j - 1]!, name) > 0; j--) {
      ids[j] = ids[j - 1]!;
      sortNames[j] = sortNames[j - 1]!;
    }
    ids[j] = id;
    sortNames[j] = name;
  }
  sortNames.length = 0;
}

function groupsFromManifest(
  items: readonly ScannedManifestItem[],
  table: FileTable,
  options: PlanOptions,
  cwd: string,
  plan: UploadPlan,
): Group[] {
  const groups: Group[] = [];
  const listedIn = new Map<string, string>();
  for (const { item, files, thumbnail } of items) {
    for (const path of item.files) {
      const first = listedIn.get(path);
      if (first)
        plan.problems.push({
          file: item.label,
          rule: 'manifest',
          actual: shownPath(path, cwd),
          message: `lists ${shownPath(path, cwd)}, which ${first} lists too`,
          hint: 'list each file once',
        });
      else listedIn.set(path, item.label);
    }
    reportInspected(files, table, plan);
    const placed = files.filter((id) => placeableMedia(table, id) !== undefined);
    const videos = placed.filter((id) => placeableMedia(table, id) === 'video');
    const manifestProblem = (actual: string, message: string, hint: string) =>
      plan.problems.push({ file: item.label, rule: 'manifest', actual, message, hint });
    if (videos.length > 0 && videos.length < placed.length) {
      manifestProblem(
        'videos and images',
        'mixes videos and images in one item',
        'give each video its own item, and the images of a carousel another',
      );
      continue;
    }
    if (videos.length > 1) {
      manifestProblem(
        `${videos.length} videos`,
        `lists ${videos.length} videos in one item`,
        'give each video its own item',
      );
      continue;
    }
    if (placed.length === 0) continue;
    const explicitType = item.type ?? options.type;
    const common = { explicitType, typeHint: manifestTypeHint, manifestMetadata: item.metadata, source: item.label };
    if (videos.length === 1) {
      if (item.to)
        manifestProblem(
          'video',
          '"to" appends images to a carousel; this item is a video',
          'remove "to" from this item',
        );
      groups.push({
        ...common,
        kind: 'video',
        files: videos,
        origin: 'video',
        thumbnail,
        sidecarOfVideo: videos[0]!,
      });
      continue;
    }
    if (item.to && item.thumbnail)
      manifestProblem(
        'thumbnail',
        'a thumbnail does not apply when appending to an existing carousel',
        'remove "thumbnail", or set it with: contentlib edit <id> --thumbnail IMG',
      );
    if (item.to && hasMetadata(item.metadata))
      manifestProblem(
        'metadata',
        'metadata does not apply when appending to an existing carousel',
        'remove the metadata, or change it with: contentlib edit <id>',
      );
    const dirs = new Set(placed.map((id) => table.folder(id)));
    const dir = dirs.size === 1 && !item.to ? [...dirs][0] : undefined;
    groups.push({
      ...common,
      kind: 'image',
      files: placed,
      origin: item.to ? 'to' : 'manifest',
      to: item.to,
      ...(item.to ? {} : { thumbnail }),
      ...(dir ? { sidecarFolder: dir } : {}),
    });
  }
  return groups;
}

/** Applies the rules to one group and builds its item. */
function planGroup(
  group: Group,
  flags: ItemMetadata,
  scanned: Scanned,
  plan: UploadPlan,
  sidecars: { read: Set<string>; sidecarFolders: ReadonlySet<string> },
): { item: PlannedItem; titleFromFlags: boolean } {
  const { table } = scanned;
  const sidecar = findSidecar(sidecarPaths(group, table, sidecars.sidecarFolders), scanned, plan, sidecars.read);
  const appending = group.to !== undefined;
  const metadata = appending ? {} : mergeMetadata(flags, sidecar, group.manifestMetadata);
  // A folder's carousel is called after its folder, unless something names it.
  const folderTitle =
    group.origin === 'folder' && group.files[0] !== undefined ? titleOfFolder(table.folder(group.files[0])) : '';
  if (metadata.title === undefined && folderTitle) metadata.title = folderTitle;
  const part = group.part ? ` (${group.part[0]}/${group.part[1]})` : '';
  if (part && metadata.title !== undefined) metadata.title = withPart(metadata.title, part);
  if (!appending && (sidecar || group.manifestMetadata)) plan.problems.push(...checkMetadata(metadata, group.source));
  const titleFromFlags =
    !appending &&
    !group.part &&
    flags.title !== undefined &&
    sidecar?.title === undefined &&
    group.manifestMetadata?.title === undefined;
  const item = new PackedItem(
    table,
    group.files,
    {
      type: 'carousel',
      metadata,
      source: `${group.source}${part}`,
      contentItemId: appending ? group.to : undefined,
    },
    group.origin === 'folder' && !group.part,
  );

  if (group.kind === 'video') {
    const id = group.files[0]!;
    const file = table.file(id);
    const { type, problems } = planVideo(file, table.shown(id), group.explicitType, group.typeHint);
    item.type = type;
    plan.problems.push(...problems.map((p) => ({ ...p, path: file.path })));
  } else {
    for (let k = 0; k < group.files.length; k++) {
      const problems = imageProblems(table, group.files[k]!, group);
      if (problems) plan.problems.push(...problems);
    }
    // Images sent with a video type were already reported; counting them as a carousel adds noise.
    if (!group.explicitType || group.explicitType === 'carousel') {
      const [first, n] = [group.files[0]!, group.files.length];
      const counted = checkCarouselCount(n, table.shown(first), group.source, group.origin as CarouselOrigin);
      if (counted.length > 0) plan.problems.push(...counted.map((p) => nameSkippedImages(p, group, plan.skipped)));
    }
    if (appending)
      plan.notes.push(
        `--to ${group.to}: the carousel's current number of images is checked against the maximum of ${TYPE_RULES.carousel.maxFiles} when the upload starts`,
      );
  }
  if (group.thumbnail) item.thumbnail = planThumbnail(group.thumbnail, plan);
  return { item, titleFromFlags };
}

/**
 * What is wrong with image `id` of a carousel (checkImage), each problem with its path. Most
 * images are fine: for those, no record and no shown path are made (a plan of 100,000 images made
 * ~2 KB of garbage per file with them; test/upload/decide-garbage.test.ts).
 */
function imageProblems(table: FileTable, id: number, group: Group): PlanProblem[] | undefined {
  const explicit = group.explicitType;
  if (!explicit || explicit === 'carousel') {
    const contentType = table.contentType(id);
    const size = table.size(id);
    // An empty or unrecognised file: inspection said so; checkImage has nothing to add.
    if (!contentType || size === 0 || fitsFile('carousel', contentType, size)) return undefined;
  }
  const file = table.file(id);
  return checkImage(file, table.shown(id), explicit, group.typeHint).map((p) => ({ ...p, path: file.path }));
}

/** The sidecar paths to look for; none are made for a group whose folder holds no sidecar. */
function sidecarPaths(group: Group, table: FileTable, sidecarFolders: ReadonlySet<string>): readonly string[] {
  const video = group.sidecarOfVideo;
  if (video !== undefined) return sidecarFolders.has(table.folder(video)) ? [videoSidecarName(table.path(video))] : [];
  const folder = group.sidecarFolder;
  // A carousel folder has two possible names (one, for a folder named "carousel").
  return folder !== undefined && sidecarFolders.has(folder) ? [...new Set(carouselSidecarNames(folder))] : [];
}

/** `--thumbnail IMG`: only for a plan of exactly one video. */
function planThumbnailFlag(thumbnail: ScannedFile, plan: UploadPlan): void {
  const [first, ...rest] = plan.items;
  if (!first || rest.length > 0 || first.type === 'carousel') {
    const what = !first ? 'no item' : rest.length > 0 ? `${plan.items.length} items` : 'a carousel';
    plan.problems.push({
      file: '--thumbnail',
      rule: 'thumbnail',
      actual: what,
      message: `needs exactly one video to upload; the plan has ${what}`,
      hint: 'upload the video on its own, or set a thumbnail later with: contentlib edit <id> --thumbnail IMG',
    });
    return;
  }
  first.thumbnail = planThumbnail(thumbnail, plan);
}

function planThumbnail({ file, shown }: ScannedFile, plan: UploadPlan): InspectedFile {
  plan.warnings.push(...file.warnings);
  plan.problems.push(...checkThumbnailFile(file, shown));
  return file;
}

/**
 * "a carousel needs at least 2 images; got only 1 from set" is a riddle when set also holds a
 * HEIC that was skipped: the problem names the skipped media files of that folder.
 */
function nameSkippedImages(problem: PlanProblem, group: Group, skipped: readonly Skipped[]): PlanProblem {
  if (problem.rule !== 'carousel' || group.origin !== 'folder' || group.files.length >= TYPE_RULES.carousel.minFiles)
    return problem;
  const prefix = group.source === '.' ? '' : `${group.source}/`;
  const here = skipped.filter(
    (s) => s.media && s.path.startsWith(prefix) && !s.path.slice(prefix.length).includes('/'),
  );
  if (here.length === 0) return problem;
  const list = here.map((s) => `${s.path} (${s.reason})`).join(', ');
  const hint = here[0]!.hint ? `${here[0]!.hint}, or ${problem.hint ?? 'add another image'}` : problem.hint;
  return { ...problem, message: `${problem.message}; skipped there: ${list}`, ...(hint ? { hint } : {}) };
}

/** "Trip" → "Trip (2/3)", cut so that the part still fits the title's limit. */
function withPart(title: string, part: string): string {
  return [...title].slice(0, METADATA_LIMITS.titleMaxChars - part.length).join('') + part;
}

/** A folder's name as a title: control and direction characters become spaces; at most the limit. */
function titleOfFolder(folder: string): string {
  const base = basename(folder);
  // Most names are short and plain: taken as they are, without a string per character.
  if (base.length <= METADATA_LIMITS.titleMaxChars && !needsEscape(base)) return base.trim();
  const name = [...base].map((ch) => (needsEscape(ch) ? ' ' : ch));
  return name.slice(0, METADATA_LIMITS.titleMaxChars).join('').trim();
}

/** The metadata of the first sidecar found; two sidecars for one item is a problem (which wins?). */
function findSidecar(
  paths: readonly string[],
  scanned: Scanned,
  plan: UploadPlan,
  sidecarsRead: Set<string>,
): ItemMetadata | undefined {
  if (paths.length === 0) return undefined;
  const found = paths.flatMap((path) => scanned.sidecars[path] ?? []);
  for (const sidecar of found) sidecarsRead.add(sidecar.shown);
  for (const sidecar of found) if ('problem' in sidecar) plan.problems.push(sidecar.problem);
  if (found.length > 1) {
    plan.problems.push({
      file: found[1]!.shown,
      rule: 'sidecar',
      actual: `${found.length} sidecars`,
      message: `a second sidecar for the same carousel (${found[0]!.shown} is the other)`,
      hint: 'keep one of them',
    });
  }
  const first = found[0];
  return first && 'metadata' in first ? first.metadata : undefined;
}

/** The media a file will be uploaded as: its real format's, or its name's when the bytes are unrecognised. */
function placeableMedia(table: FileTable, id: number): Media | undefined {
  const realFormat = table.realFormat(id);
  if (realFormat) return FORMATS[realFormat].media;
  // A missing or unreadable file is not placed (it is only a problem); an empty or damaged one
  // is, so that the carousel count reads as the user expects.
  const extFormat = table.extFormat(id);
  if (extFormat && !table.problems(id).some((p) => p.rule === 'exists' || p.rule === 'readable'))
    return FORMATS[extFormat].media;
  return undefined;
}
