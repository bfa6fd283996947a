// What became of each item of a run, kept packed until the summary reads it. A run of 100,000
// tiny files in 10,000 folders held an outcome object per item to the end, each with its own
// copy of the folder's path (a folder carousel's source is made again each time it is read):
// ~170 bytes an item, the one part of the run's memory that still grew with every item sent
// (bench/notes.md, issue 41). Here an item's status and counts are a few bytes in typed arrays,
// an id the service made as a UUID is 16 bytes, and what only a failure, a stop or a metadata
// comparison says is kept by index. An outcome is made again when it is read, its type, source
// and title from the plan's item.
import type { EngineItem } from './run.js';
import type { ItemOutcome, ItemOutcomes } from './events.js';

const STATUSES = ['created', 'skipped', 'failed', 'partial', 'interrupted'] as const satisfies ReadonlyArray<
  ItemOutcome['status']
>;
const STATUS_CODE = new Map<ItemOutcome['status'], number>(STATUSES.map((s, i) => [s, i + 1]));

/** Per item: files completed, skipped, found in the library, and in all. */
const COUNTS = 4;
const UUID_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What few outcomes say: kept by index, only for the items that have any of it. */
interface Rare {
  itemId?: string;
  message?: string;
  keyRejected?: true;
  deletedItemId?: string;
  appended?: true;
  differs?: ItemOutcome['differs'];
  updated?: ItemOutcome['updated'];
}

export class OutcomeList implements ItemOutcomes {
  readonly #items: readonly EngineItem[];
  /** 0 until the item's outcome is set, then its status's place in STATUSES plus one. */
  readonly #status: Uint8Array;
  readonly #counts: Uint32Array;
  /** Item ids in the canonical UUID form, as 16 bytes; `#hasUuid` says which items have one. */
  readonly #uuids: Uint8Array;
  readonly #hasUuid: Uint8Array;
  readonly #rare = new Map<number, Rare>();

  constructor(items: readonly EngineItem[]) {
    this.#items = items;
    this.#status = new Uint8Array(items.length);
    this.#counts = new Uint32Array(items.length * COUNTS);
    this.#uuids = new Uint8Array(items.length * UUID_BYTES);
    this.#hasUuid = new Uint8Array(items.length);
  }

  get length(): number {
    return this.#items.length;
  }

  /** Keeps what `o` says of item `o.index`, replacing what was kept for it before. */
  set(o: ItemOutcome): void {
    const i = o.index;
    this.#setStatus(i, o.status, o.itemId);
    this.#setCounts(i, o.filesCompleted, o.filesSkipped, o.filesInLibrary ?? 0, o.filesTotal);
    const rare: Rare = {
      ...(o.itemId !== undefined && !this.#hasUuid[i] ? { itemId: o.itemId } : {}),
      ...(o.message !== undefined ? { message: o.message } : {}),
      ...(o.keyRejected ? { keyRejected: true as const } : {}),
      ...(o.deletedItemId !== undefined ? { deletedItemId: o.deletedItemId } : {}),
      ...(o.appended ? { appended: true as const } : {}),
      ...(o.differs ? { differs: o.differs } : {}),
      ...(o.updated ? { updated: o.updated } : {}),
    };
    if (Object.keys(rare).length > 0) this.#rare.set(i, rare);
  }

  /**
   * Item `index` was never started (the run stopped first): `status` (`skipped` when every file is
   * there from before, else `interrupted`), the files there from before, and the item an earlier
   * run made. Kept as `set` keeps it, without an outcome made for it: a Ctrl-C can leave 10,000
   * items unstarted, and their outcomes, made in one burst, set the run's peak (bench/notes.md,
   * issue 41).
   */
  setNotStarted(
    index: number,
    status: 'skipped' | 'interrupted',
    filesSkipped: number,
    filesTotal: number,
    itemId?: string,
  ): void {
    this.#setStatus(index, status, itemId);
    this.#setCounts(index, 0, filesSkipped, 0, filesTotal);
    if (itemId !== undefined && !this.#hasUuid[index]) this.#rare.set(index, { itemId });
  }

  /** The status and a UUID id; what else was kept for the item goes. */
  #setStatus(i: number, status: ItemOutcome['status'], itemId: string | undefined): void {
    this.#status[i] = STATUS_CODE.get(status)!;
    this.#hasUuid[i] = itemId !== undefined && UUID.test(itemId) ? 1 : 0;
    if (this.#hasUuid[i]) this.#uuids.set(Buffer.from(itemId!.replaceAll('-', ''), 'hex'), i * UUID_BYTES);
    this.#rare.delete(i);
  }

  #setCounts(i: number, completed: number, skipped: number, inLibrary: number, total: number): void {
    const at = i * COUNTS;
    this.#counts[at] = completed;
    this.#counts[at + 1] = skipped;
    this.#counts[at + 2] = inLibrary;
    this.#counts[at + 3] = total;
  }

  /** Item `index`'s outcome as the engine gave it, or undefined before it was set (as Array's `at`, negative counts from the end). */
  at(index: number): ItemOutcome | undefined {
    const i = index < 0 ? index + this.length : index;
    const code = this.#status[i];
    if (!code) return undefined;
    const item = this.#items[i]!;
    const [completed, skipped, inLibrary, total] = this.#counts.subarray(i * COUNTS, (i + 1) * COUNTS);
    const { itemId, appended, ...rare } = this.#rare.get(i) ?? {};
    const id = this.#hasUuid[i] ? uuidOf(this.#uuids.subarray(i * UUID_BYTES, (i + 1) * UUID_BYTES)) : itemId;
    const title = item.metadata.title;
    return {
      index: i,
      type: item.type,
      source: item.source,
      status: STATUSES[code - 1]!,
      ...(id !== undefined ? { itemId: id } : {}),
      filesCompleted: completed!,
      filesSkipped: skipped!,
      ...(inLibrary ? { filesInLibrary: inLibrary } : {}),
      filesTotal: total!,
      ...rare,
      // Images added to a carousel: one the library held (the engine found it) or --to's.
      ...(appended || item.contentItemId !== undefined ? { appended: true as const } : {}),
      ...(title !== undefined ? { title } : {}),
    };
  }

  *[Symbol.iterator](): Iterator<ItemOutcome> {
    for (let i = 0; i < this.length; i++) {
      const o = this.at(i);
      if (o) yield o;
    }
  }
}

function uuidOf(b: Uint8Array): string {
  const hex = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The outcomes `test` picks, as an array (`upload`'s rows on stdout: every item that exists). */
export function outcomesWhere(items: Iterable<ItemOutcome>, test: (o: ItemOutcome) => boolean): ItemOutcome[] {
  const picked: ItemOutcome[] = [];
  for (const o of items) if (test(o)) picked.push(o);
  return picked;
}

/** How many items ended each way, images appended to a carousel counted apart from items created. */
export interface Tally {
  created: number;
  appended: number;
  skipped: number;
  partial: number;
  failed: number;
  interrupted: number;
}

/** Outcomes of one kind: how many, and the first few, which a summary names one by one. */
export interface Picked {
  count: number;
  first: ItemOutcome[];
}

/** What a summary says of a run's outcomes, text or NDJSON (./outcomes.ts `readOutcomes`). */
export interface OutcomeFacts {
  tally: Tally;
  /** Files not sent: as the journal said (`filesSkipped`), and of those found in the library by checksum. */
  skippedFiles: number;
  inLibraryFiles: number;
  /** Carousels images were appended to (status created). */
  appended: Picked;
  /** Failed or incomplete items; of the failed, those whose key the service refused. */
  failedOrPartial: Picked;
  failedKeyRejected: number;
  /** Items in the library whose local metadata differs from it; items --update-metadata changed. */
  differing: Picked;
  updated: Picked;
  /** After a stop: items that exist (and were not already there), items that do not, and stopped items with a reason. */
  made: Picked;
  notMade: Picked;
  unfinished: Picked;
}

/**
 * Everything a summary says of the outcomes, read in one pass: reading an OutcomeList makes each
 * outcome again (and its folder's title), so the summaries read it once, keeping `keep` of each
 * kind it names one by one.
 */
export function readOutcomes(items: Iterable<ItemOutcome>, keep: number): OutcomeFacts {
  const picked = (): Picked => ({ count: 0, first: [] });
  const f: OutcomeFacts = {
    tally: { created: 0, appended: 0, skipped: 0, partial: 0, failed: 0, interrupted: 0 },
    skippedFiles: 0,
    inLibraryFiles: 0,
    appended: picked(),
    failedOrPartial: picked(),
    failedKeyRejected: 0,
    differing: picked(),
    updated: picked(),
    made: picked(),
    notMade: picked(),
    unfinished: picked(),
  };
  const add = (p: Picked, o: ItemOutcome) => {
    if (p.count++ < keep) p.first.push(o);
  };
  for (const o of items) {
    const appended = o.status === 'created' && o.appended === true;
    f.tally[appended ? 'appended' : o.status]++;
    f.skippedFiles += o.filesSkipped;
    f.inLibraryFiles += o.filesInLibrary ?? 0;
    if (appended) add(f.appended, o);
    if (o.status === 'failed' || o.status === 'partial') add(f.failedOrPartial, o);
    if (o.status === 'failed' && o.keyRejected) f.failedKeyRejected++;
    if (o.differs?.length) add(f.differing, o);
    if (o.updated?.length) add(f.updated, o);
    if (o.itemId && o.status !== 'skipped') add(f.made, o);
    if (!o.itemId && o.status !== 'failed') add(f.notMade, o);
    if (o.status === 'interrupted' && o.message) add(f.unfinished, o);
  }
  return f;
}
