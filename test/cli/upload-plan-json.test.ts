// `upload --dry-run --json` writes its document item by item (src/cli/output/upload-plan.ts):
// the text must be exactly JSON.stringify of the whole document, whatever the items hold, and
// more items than one write's batch must not change it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planJson, printPlan } from '../../src/cli/output/upload-plan.js';
import type { Lookup } from '../../src/upload/send/library-lookup.js';
import { FileTable } from '../../src/upload/plan/file-table.js';
import { PackedItem, type UploadPlan } from '../../src/upload/plan/decide.js';
import { bufferIO } from '../support/io.js';

const ID = '6f1c0a5e-8d0b-4f5e-9a57-2b1d3c4e5f60';

function planOf(folders: number): UploadPlan {
  const table = new FileTable('/work');
  const items = Array.from({ length: folders }, (_, k) => {
    const ids = [0, 1, 2].map((n) =>
      table.add({
        path: join('/work', `album "${k}"`, `photo-${n}.jpg`),
        name: `photo-${n}.jpg`,
        size: 1000 + n,
        mtimeMs: 1,
        extFormat: 'jpeg',
        realFormat: 'jpeg',
        contentType: 'image/jpeg',
        problems: [],
        warnings: [],
      }),
    );
    return new PackedItem(table, ids, {
      type: 'carousel',
      metadata: { title: `album "${k}" ✓` },
      source: `album "${k}"`,
      contentItemId: k === 1 ? ID : undefined,
    });
  });
  return {
    items,
    problems: [],
    skipped: [{ path: 'notes.txt', kind: 'not-media', reason: 'not a photo or video (.txt)', media: false }],
    warnings: [],
    notes: [],
    leftOut: [{ source: 'bad.jpg', paths: ['/work/bad.jpg'], problems: [] }],
  };
}

async function printed(plan: UploadPlan, lookup?: Lookup): Promise<string> {
  const io = bufferIO();
  await printPlan(io, 'json', plan, {}, lookup);
  return io.out();
}

describe('upload --dry-run --json', () => {
  it('writes exactly the whole document, for one item and for more than one batch holds', async () => {
    for (const folders of [1, 2000]) {
      const plan = planOf(folders);
      const lookup: Lookup = {
        views: plan.items.map((_, i) => (i % 2 ? { kind: 'new' as const } : undefined)),
        sha256: plan.items.map((_, i) => [i % 3 ? 'ab'.repeat(32) : undefined, undefined, 'cd'.repeat(32)]),
      };
      for (const l of [undefined, lookup]) {
        const text = await printed(plan, l);
        expect(text).toBe(`${JSON.stringify(planJson(plan, l))}\n`);
        expect(JSON.parse(text)).toMatchObject({ type: 'dry-run', items: { length: folders } });
      }
    }
  });

  it('writes no items as an empty list', async () => {
    const plan = { ...planOf(0), skipped: [], leftOut: [] };
    expect(await printed(plan)).toBe('{"type":"dry-run","items":[],"skipped":[],"leftOut":[],"warnings":[]}\n');
  });
});
