// Item ids as people type them: a whole id, or its first characters (at least MIN_PREFIX), as git
// and docker accept a unique prefix. Used by show, edit and rm before their request.
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { ContentItem } from '../api/schemas.js';
import { LIST_LIMITS } from '../rules/rules.js';
import { escapeName } from '../text/escape-name.js';
import { NotFoundError, UsageError } from './errors.js';

/** The fewest characters a short id may have: 6 hex digits, 16.7 million values. */
export const MIN_PREFIX = 6;

/** Every item id is a UUID (the spec), in the shape of this pattern, x a hexadecimal digit. */
const SHAPE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

/** How many candidates an ambiguous prefix lists. */
const SHOWN = 10;

export type IdInput = { kind: 'id'; id: string } | { kind: 'prefix'; prefix: string };

/** A whole id or a prefix (lower case), or a usage error (exit 2) that says what an id looks like. */
export function parseIdInput(input: string): IdInput {
  const text = input.trim().toLowerCase();
  const shape = text.replace(/[0-9a-f]/g, 'x');
  const example = 'an id is a UUID like 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11, or its first 6 characters or more';
  if (text === '' || !SHAPE.startsWith(shape))
    throw new UsageError(`"${input}" is not an item id: ${example}.`, 'Find the id with: contentlib ls');
  if (shape.length === SHAPE.length) return { kind: 'id', id: text };
  if (text.replace(/-/g, '').length < MIN_PREFIX)
    throw new UsageError(
      `"${input}" is too short to stand for an item: give at least ${MIN_PREFIX} characters of its id.`,
      'Find the id with: contentlib ls',
    );
  return { kind: 'prefix', prefix: text };
}

export interface ResolveDeps {
  client: Pick<ApiClient, 'list'>;
  signal?: AbortSignal;
  /** The library, in words, for "not found" ("the embedded library (…)", "https://…"). */
  library: string;
}

/**
 * The items whose id starts with `prefix`. Our server filters with the `idPrefix` extension;
 * another service may refuse it (400: it is asked again without) or ignore it: every page is
 * filtered here too, and read to its end, so the answer is the same, only slower.
 */
export async function itemsWithPrefix(
  prefix: string,
  deps: Pick<ResolveDeps, 'client' | 'signal'>,
): Promise<ContentItem[]> {
  const found: ContentItem[] = [];
  let extension = true;
  const limit = LIST_LIMITS.maxLimit;
  for (let offset = 0; ;) {
    let page;
    try {
      page = await deps.client.list(
        { ...(extension ? { idPrefix: prefix } : {}), limit, offset },
        { signal: deps.signal },
      );
    } catch (err) {
      if (extension && err instanceof ApiError && err.status === 400) {
        extension = false;
        continue;
      }
      throw err;
    }
    found.push(...page.items.filter((i) => i.id.toLowerCase().startsWith(prefix)));
    if (!page.hasMore || page.items.length === 0) return found;
    offset += page.items.length;
  }
}

/**
 * How every command says an item is not there: the id (or the short id) and the library in
 * words, never the API's own message (which names its endpoints). Exit 5.
 */
export function notInLibrary(input: string, library: string): NotFoundError {
  let prefix: string | undefined;
  try {
    const parsed = parseIdInput(input);
    if (parsed.kind === 'prefix') prefix = parsed.prefix;
  } catch {
    // Not an id at all (a caller that did not check it): said as a whole id.
  }
  return new NotFoundError(
    prefix === undefined ? `Item ${input} is not in ${library}.` : `No item id starts with ${prefix} in ${library}.`,
    'Check the id with: contentlib ls',
  );
}

/** The whole id `input` stands for: itself, or the one item whose id starts with it. */
export async function resolveItemId(input: string, deps: ResolveDeps): Promise<string> {
  const parsed = parseIdInput(input);
  if (parsed.kind === 'id') return parsed.id;
  const matches = await itemsWithPrefix(parsed.prefix, deps);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw notInLibrary(parsed.prefix, deps.library);
  const lines = matches.slice(0, SHOWN).map((i) => `  ${i.id}  ${i.type.padEnd(9)}  ${escapeName(i.title)}`);
  if (matches.length > SHOWN) lines.push(`  … and ${matches.length - SHOWN} more`);
  throw new UsageError(
    `${parsed.prefix} is ambiguous: ${matches.length} item ids start with it:\n${lines.join('\n')}`,
    'Give more characters of the id.',
  );
}
