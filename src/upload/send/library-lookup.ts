// `upload --dry-run`: which planned items the library has already, and as which item, without
// sending anything. The same identification as the upload (./identify.ts, ./library-match.ts):
// what this machine's journal knows is not hashed; the rest is hashed and asked about in batches.
import { createIdentifier } from './identify.js';
import type { Journal } from './journal.js';
import { type LibraryVerdict, libraryVerdict } from './library-match.js';
import type { EngineApi, EngineItem } from './engine.js';

/** What the library holds of one planned item. */
export type LibraryView =
  | LibraryVerdict
  /** Every file was uploaded by an earlier run on this machine into `itemId` (the journal says so). */
  | { kind: 'uploaded'; itemId: string };

export interface Lookup {
  /** Per planned item; undefined for an item that could not be looked up (see `problem`). */
  views: Array<LibraryView | undefined>;
  /** Per planned item, each file's SHA-256 (undefined for one the journal knew). */
  sha256: Array<Array<string | undefined>>;
  /** Why the library could not be asked (a service without the extension), said once. */
  notice?: string;
}

export async function lookUp(
  items: readonly EngineItem[],
  api: Pick<EngineApi, 'check'>,
  journal: Pick<Journal, 'completedItem'> | undefined,
  signal: AbortSignal,
): Promise<Lookup> {
  const known = items.map((item) => item.files.map((f) => journal?.completedItem(f)));
  let notice: string | undefined;
  const identifier = createIdentifier(
    items,
    (i) => ({ files: known[i]!.map((k) => k === undefined), thumbnail: false }),
    {
      api,
      signal,
      check: true,
      onUnsupported: () => {
        notice =
          'this service cannot say which files it already has (no POST /api/v1/upload/check, or the key lacks content:read): only this machine’s upload journal is known';
      },
    },
  );
  const views: Array<LibraryView | undefined> = [];
  const sha256: Array<Array<string | undefined>> = [];
  for (const [i, item] of items.entries()) {
    const id = await identifier.of(i);
    sha256.push(id.sha256);
    const journalItem = known[i]![0];
    if (journalItem !== undefined && known[i]!.every((k) => k === journalItem)) {
      views.push({ kind: 'uploaded', itemId: journalItem });
      continue;
    }
    if (id.error) throw id.error;
    const asked = id.matches.some((m) => m !== undefined);
    views.push(
      asked
        ? libraryVerdict({
            type: item.type,
            matches: id.matches,
            ...(item.contentItemId ? { target: item.contentItemId } : {}),
          })
        : undefined,
    );
  }
  return { views, sha256, ...(notice ? { notice } : {}) };
}
