// The engine's outcomes, kept packed until the summary reads them (src/upload/send/outcomes.ts):
// each outcome reads back as it was set, whatever it holds, with its type, source and title from
// the plan's item; and 10,000 of them hold a fraction of the heap that as many objects held
// (bench/notes.md, issue 41). Not timed.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ItemOutcome } from '../../src/upload/send/events.js';
import { OutcomeList, outcomesWhere, readOutcomes } from '../../src/upload/send/outcomes.js';
import type { EngineItem } from '../../src/upload/send/run.js';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

function item(source: string, o: Partial<EngineItem> = {}): EngineItem {
  return { type: 'carousel', files: [], metadata: {}, source, ...o };
}

function outcome(index: number, o: Partial<ItemOutcome> = {}): ItemOutcome {
  return {
    index,
    type: 'carousel',
    source: `album-${index}`,
    status: 'created',
    filesCompleted: 3,
    filesSkipped: 0,
    filesTotal: 3,
    ...o,
  };
}

describe('the outcome list', () => {
  // Each row: what the engine set, read back as it was.
  const cases: Array<[string, Partial<ItemOutcome>]> = [
    ['created, with a UUID', { itemId: UUID, filesInLibrary: 1, filesSkipped: 1, filesCompleted: 2 }],
    ['skipped, an id that is no UUID', { status: 'skipped', itemId: 'item_01HX', filesSkipped: 3, filesCompleted: 0 }],
    ['a UUID in capitals, kept as it came', { itemId: UUID.toUpperCase() }],
    ['a UUID with its dashes elsewhere', { itemId: '0f8fad5bd9cb-469f-a165-70867728-950e' }],
    ['failed, no item', { status: 'failed', message: 'a.jpg: presign failed: 500', filesCompleted: 0 }],
    ['partial, the key refused', { status: 'partial', itemId: UUID, keyRejected: true, message: 'not finished' }],
    ['interrupted', { status: 'interrupted', itemId: UUID, filesCompleted: 1, message: 'run it again' }],
    ['a half carousel deleted', { status: 'failed', deletedItemId: UUID, message: 'deleted again' }],
    ['differs from the library', { status: 'skipped', itemId: UUID, differs: ['title', 'hashtags'] }],
    ['metadata updated', { status: 'skipped', itemId: UUID, updated: ['description'] }],
    ['appended to a carousel the library held', { itemId: UUID, appended: true }],
    ['counts past 65,535', { filesCompleted: 70_000, filesSkipped: 100_000, filesTotal: 170_000 }],
  ];

  it.each(cases)('%s: read back as set', (_, fields) => {
    const list = new OutcomeList([item('album-0')]);
    const o = outcome(0, fields);
    list.set(o);
    expect(list.at(0)).toStrictEqual(o);
    expect([...list]).toStrictEqual([o]);
  });

  // Each row: an item the run never started, as setNotStarted keeps it and as set keeps the
  // outcome the engine made for it before (skipped when all its files are there from before).
  const notStarted: Array<[string, 'skipped' | 'interrupted', number, string | undefined]> = [
    ['interrupted, nothing made', 'interrupted', 0, undefined],
    ['interrupted, an earlier run made half of it', 'interrupted', 1, UUID],
    ['interrupted, an id that is no UUID', 'interrupted', 2, 'item_01HX'],
    ['skipped, all there from before', 'skipped', 3, UUID],
  ];

  it.each(notStarted)('not started, %s: read back as the outcome set for it', (_, status, skipped, itemId) => {
    const direct = new OutcomeList([item('album-0')]);
    // What was kept for the item before (a failure's message) goes, as with set.
    direct.set(outcome(0, { status: 'failed', message: 'no', itemId: 'x-1' }));
    direct.setNotStarted(0, status, skipped, 3, itemId);
    const made = new OutcomeList([item('album-0')]);
    made.set(outcome(0, { status, filesCompleted: 0, filesSkipped: skipped, ...(itemId ? { itemId } : {}) }));
    expect(direct.at(0)).toStrictEqual(made.at(0));
  });

  it("takes the type, source and title from the plan's item, and --to's carousel as appended", () => {
    const items = [
      item('a.mp4', { type: 'shortform', metadata: { title: 'Launch' } }),
      item('album', { contentItemId: UUID }),
    ];
    const list = new OutcomeList(items);
    list.set(outcome(0, { type: 'shortform', source: 'a.mp4', filesTotal: 1, filesCompleted: 1 }));
    list.set(outcome(1, { source: 'album', itemId: UUID }));
    expect(list.at(0)).toStrictEqual(
      outcome(0, { type: 'shortform', source: 'a.mp4', filesTotal: 1, filesCompleted: 1, title: 'Launch' }),
    );
    expect(list.at(1)).toStrictEqual(outcome(1, { source: 'album', itemId: UUID, appended: true }));
  });

  it('an outcome set again replaces the first, its rare fields too', () => {
    const list = new OutcomeList([item('album-0')]);
    list.set(outcome(0, { status: 'failed', message: 'no', itemId: 'x-1', keyRejected: true }));
    list.set(outcome(0, { itemId: UUID }));
    expect(list.at(0)).toStrictEqual(outcome(0, { itemId: UUID }));
    list.set(outcome(0, { itemId: 'x-2' }));
    expect(list.at(0)).toStrictEqual(outcome(0, { itemId: 'x-2' }));
  });

  it("reads in plan order, by index as Array's at does, and nothing before it is set", () => {
    const list = new OutcomeList([item('album-0'), item('album-1'), item('album-2')]);
    expect(list.length).toBe(3);
    expect(list.at(1)).toBeUndefined();
    list.set(outcome(2, { status: 'skipped' }));
    list.set(outcome(0));
    list.set(outcome(1, { status: 'failed' }));
    expect([...list].map((o) => [o.index, o.status])).toEqual([
      [0, 'created'],
      [1, 'failed'],
      [2, 'skipped'],
    ]);
    expect(list.at(-1)).toStrictEqual(outcome(2, { status: 'skipped' }));
    expect(list.at(3)).toBeUndefined();
  });

  it('read in one pass: appended counted apart from created, sums, and the first few of each kind', () => {
    const list = new OutcomeList([0, 1, 2, 3, 4, 5, 6, 7].map((i) => item(`album-${i}`)));
    list.set(outcome(0, { itemId: 'id-0' }));
    list.set(outcome(1, { appended: true, itemId: 'id-1' }));
    list.set(outcome(2, { status: 'skipped', itemId: 'id-2', filesSkipped: 3, filesInLibrary: 3, differs: ['title'] }));
    list.set(outcome(3, { status: 'failed', message: 'no', keyRejected: true }));
    list.set(outcome(4, { status: 'interrupted', message: 'stopped at part 3' }));
    list.set(outcome(5, { status: 'partial', itemId: 'id-5', message: 'one image refused' }));
    list.set(outcome(6, { status: 'skipped', itemId: 'id-6', filesSkipped: 2, updated: ['title'] }));
    list.set(outcome(7, { status: 'interrupted' }));
    let reads = 0;
    const counted = {
      *[Symbol.iterator]() {
        for (const o of list) {
          reads++;
          yield o;
        }
      },
    };
    const f = readOutcomes(counted, 1);
    expect(reads).toBe(8);
    expect(f.tally).toEqual({ created: 1, appended: 1, skipped: 2, partial: 1, failed: 1, interrupted: 2 });
    expect([f.skippedFiles, f.inLibraryFiles, f.failedKeyRejected]).toEqual([5, 3, 1]);
    // Each kind: its count, and the first `keep` (1) by index.
    const kinds = {
      appended: [1, [1]],
      failedOrPartial: [2, [3]],
      differing: [1, [2]],
      updated: [1, [6]],
      made: [3, [0]],
      notMade: [2, [4]],
      unfinished: [1, [4]],
    } as const;
    for (const [kind, [count, first]] of Object.entries(kinds)) {
      const p = f[kind as keyof typeof kinds];
      expect([kind, p.count, p.first.map((o) => o.index)]).toEqual([kind, count, first]);
    }
    expect(readOutcomes(list, 0).made).toEqual({ count: 3, first: [] });
    expect(readOutcomes(list, 10).made.first.map((o) => o.index)).toEqual([0, 1, 5]);
    expect(outcomesWhere(list, (o) => o.status === 'failed').map((o) => o.index)).toEqual([3]);
  });

  it('10,000 outcomes hold under a quarter of the heap that as many objects hold', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (o?: { type: 'major'; execution: 'sync' }) => void;
    setFlagsFromString('--no-expose-gc');
    const heapUsed = () => {
      gc({ type: 'major', execution: 'sync' });
      gc({ type: 'major', execution: 'sync' });
      const m = process.memoryUsage();
      // The list's typed arrays are outside the heap: counted too.
      return m.heapUsed + m.arrayBuffers;
    };
    const n = 10_000;
    // Folder sources made as a plan's folder carousel makes them, one string per read.
    const items = Array.from({ length: n }, (_, i) => item(`/tmp/t/album-${String(i).padStart(5, '0')}`));
    const made = (i: number) =>
      outcome(i, {
        source: ['/tmp/t/album-', String(i).padStart(5, '0')].join(''),
        itemId: crypto.randomUUID(),
        filesCompleted: 10,
        filesTotal: 10,
      });
    const base = heapUsed();
    const objects = Array.from({ length: n }, (_, i) => made(i));
    const asObjects = heapUsed() - base;
    const list = new OutcomeList(items);
    for (let i = 0; i < n; i++) list.set(made(i));
    objects.length = 0;
    const asList = heapUsed() - base;
    expect(list.at(n - 1)!.filesCompleted).toBe(10);
    // Here ~650 bytes an outcome as objects (with its own source and id strings), ~80 packed.
    expect(asObjects / n).toBeGreaterThan(120);
    expect(asList / n).toBeLessThan(asObjects / n / 4);
  });
});
