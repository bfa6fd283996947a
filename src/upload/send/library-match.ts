// Is a planned item already in the library? A pure function of what the library's check said
// about each file's bytes (POST /api/v1/upload/check, docs/api.md): no disk, no network, so its
// tests are tables (test/upload/library-match.test.ts).
//
// - A video whose bytes are already an item of the same type is that item ("already there"). The
//   same bytes as another type (a shortform planned, a longform held) are not: it is uploaded.
// - A carousel folder whose images are all in one existing carousel is that carousel, even if
//   the carousel has more. A folder holding every image of an existing carousel and more (it
//   gained photos) appends the new ones to it, in folder order. A folder sharing only some images
//   with a carousel that has others too is a new carousel.
// - A carousel with a target already (--to, or the item an earlier run on this machine started)
//   skips the images that target holds and appends the rest.
import type { CheckMatch } from '../../api/schemas.js';
import type { ContentType } from '../../rules/rules.js';

export type LibraryVerdict =
  /** Nothing of it is in the library (or nothing could be asked): upload it as planned. */
  | { kind: 'new' }
  /** Every file is in `itemId` already. */
  | { kind: 'there'; itemId: string }
  /** The files `present` says are in carousel `itemId` already; the rest are appended to it. */
  | { kind: 'append'; itemId: string; present: boolean[] };

export interface MatchedItem {
  type: ContentType;
  /** What the library holds of each file's bytes; undefined for a file that was not asked about. */
  matches: ReadonlyArray<readonly CheckMatch[] | undefined>;
  /** The carousel the images go to anyway: --to, or the one an earlier run started. */
  target?: string;
}

export function libraryVerdict(item: MatchedItem): LibraryVerdict {
  if (item.type !== 'carousel') return videoVerdict(item);
  if (item.target) return targetVerdict(item, item.target);
  return carouselVerdict(item);
}

/** The oldest item of the same type holding the video's bytes (the check lists the oldest first). */
function videoVerdict(item: MatchedItem): LibraryVerdict {
  const same = (item.matches[0] ?? []).find((m) => m.role === 'file' && m.itemType === item.type);
  return same ? { kind: 'there', itemId: same.itemId } : { kind: 'new' };
}

function inCarousel(matches: readonly CheckMatch[] | undefined, itemId: string): boolean {
  return (matches ?? []).some((m) => m.role === 'image' && m.itemId === itemId);
}

function targetVerdict(item: MatchedItem, target: string): LibraryVerdict {
  const present = item.matches.map((m) => inCarousel(m, target));
  if (present.every(Boolean)) return { kind: 'there', itemId: target };
  return { kind: 'append', itemId: target, present };
}

/** Every carousel holding any of the images, with how many of them and how many images it has; oldest first. */
function candidates(item: MatchedItem): Array<{ itemId: string; held: number; fileCount: number }> {
  const found = new Map<string, { itemId: string; held: number; fileCount: number }>();
  for (const matches of item.matches) {
    // Each planned image counts once per carousel, however often the carousel holds its bytes.
    const seen = new Set<string>();
    for (const m of matches ?? []) {
      if (m.role !== 'image' || m.itemType !== 'carousel' || seen.has(m.itemId)) continue;
      seen.add(m.itemId);
      const c = found.get(m.itemId) ?? { itemId: m.itemId, held: 0, fileCount: m.itemFileCount };
      c.held++;
      found.set(m.itemId, c);
    }
  }
  return [...found.values()];
}

function carouselVerdict(item: MatchedItem): LibraryVerdict {
  const all = candidates(item);
  const whole = all.find((c) => c.held === item.matches.length);
  if (whole) return { kind: 'there', itemId: whole.itemId };
  // The folder holds every image of the carousel, and more: it gained photos.
  const grown = all.filter((c) => c.held === c.fileCount).sort((a, b) => b.held - a.held)[0];
  if (!grown) return { kind: 'new' };
  return { kind: 'append', itemId: grown.itemId, present: item.matches.map((m) => inCarousel(m, grown.itemId)) };
}
