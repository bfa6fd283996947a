// The library check asks about each distinct content once per batch (issue 41): a folder of
// copies asked once per copy made the answer, and the run's memory, grow with copies × the items
// holding those bytes. Counted, not timed: what the check request carries and what each file
// gets back.
import { describe, expect, it } from 'vitest';
import type { CheckMatch, CheckRequest, CheckResponse } from '../../src/api/schemas.js';
import { createIdentifier, type IdentifiedItem } from '../../src/upload/send/identify.js';
import type { SendableFile } from '../../src/upload/send/transfer.js';

const file = (path: string, size: number): SendableFile => ({
  path,
  name: path,
  size,
  mtimeMs: 0,
  contentType: 'image/jpeg',
});

/** `folders` carousels of `images` files each, of the sizes `size` gives. */
function carousels(folders: number, images: number, size: (path: string) => number): IdentifiedItem[] {
  return Array.from({ length: folders }, (_, f) => ({
    files: Array.from({ length: images }, (_, i) => file(`set-${f}/${i}.jpg`, size(`set-${f}/${i}.jpg`))),
  }));
}

/** The library holds every content in `holders` items; the check requests are kept. */
function library(holders: number) {
  const requests: CheckRequest[] = [];
  const matchesOf = (sha256: string): CheckMatch[] =>
    Array.from({ length: holders }, (_, k) => ({
      itemId: `item-${k}`,
      itemType: 'carousel',
      itemFileCount: 10,
      role: 'image',
      fileName: sha256,
    }));
  return {
    requests,
    api: {
      check: async (body: CheckRequest): Promise<CheckResponse> => {
        requests.push(body);
        return { files: body.files.map((f) => ({ sha256: f.sha256, size: f.size, matches: matchesOf(f.sha256) })) };
      },
    },
  };
}

async function identifyAll(items: IdentifiedItem[], contentOf: (path: string) => string, holders: number) {
  const lib = library(holders);
  const id = createIdentifier(items, (i) => ({ files: items[i]!.files.map(() => true), thumbnail: false }), {
    api: lib.api,
    signal: new AbortController().signal,
    check: true,
    onUnsupported: () => {
      throw new Error('the check is supported here');
    },
    hash: async (f) => contentOf(f.path),
  });
  const identities = [];
  for (let i = 0; i < items.length; i++) identities.push(await id.of(i));
  return { identities, requests: lib.requests };
}

describe('the library check asks about each content once per batch', () => {
  it('copies of one photo: one entry per batch, and every copy gets that one answer', async () => {
    const items = carousels(100, 10, () => 2000);
    const { identities, requests } = await identifyAll(items, () => 'a'.repeat(64), 280);
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) expect(r.files).toEqual([{ sha256: 'a'.repeat(64), size: 2000 }]);
    const answers = new Set(identities.flatMap((x) => x.matches));
    // One array per batch, shared: not one copy of the 280 matches per file.
    expect(answers.size).toBe(requests.length);
    for (const x of identities) for (const m of x.matches) expect(m).toHaveLength(280);
  });

  it('files of their own bytes: each asked about once, in plan order, each with its own answer', async () => {
    const items = carousels(30, 10, () => 2000);
    const { identities, requests } = await identifyAll(items, (p) => p.padEnd(64, '0'), 1);
    const asked = requests.flatMap((r) => r.files.map((f) => f.sha256));
    expect(asked).toEqual(items.flatMap((it) => it.files.map((f) => f.path.padEnd(64, '0'))));
    identities.forEach((x, i) =>
      x.matches.forEach((m, n) => expect(m?.[0]?.fileName).toBe(items[i]!.files[n]!.path.padEnd(64, '0'))),
    );
  });

  it('the same SHA-256 with another size is another content: asked about apart', async () => {
    const items = carousels(1, 4, (p) => (p.endsWith('0.jpg') || p.endsWith('1.jpg') ? 100 : 200));
    const { identities, requests } = await identifyAll(items, () => 'b'.repeat(64), 1);
    expect(requests.flatMap((r) => r.files)).toEqual([
      { sha256: 'b'.repeat(64), size: 100 },
      { sha256: 'b'.repeat(64), size: 200 },
    ]);
    expect(identities[0]!.matches.every((m) => m?.length === 1)).toBe(true);
  });
});
