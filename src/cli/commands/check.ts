// contentlib check PATHS|IDS --for reels,shorts: will these platforms take it? A local file is
// measured by the same parsers the server runs at complete (src/media/facts.ts); an item is
// judged by the facts the library measured (GET /api/v1/content/:id), with its description and
// hashtags. Each file against each platform's row (src/rules/platforms.ts): pass, or the exact
// rule broken and what to do. Nothing is sent or changed.
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ApiClient } from '../../api/client.js';
import type { ContentItem, GetResponse } from '../../api/schemas.js';
import { MediaError } from '../../media/errors.js';
import { readMediaFactsFile } from '../../media/facts.js';
import { type MediaFacts, mediaSummary } from '../../rules/media-facts.js';
import {
  PLATFORM_IDS,
  type PlatformId,
  type Violation,
  checkFor,
  checkImageCount,
  ruleFor,
  targetsOf,
} from '../../rules/platforms.js';
import { FORMATS } from '../../rules/rules.js';
import { interruptible, openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { parseIdInput, resolveItemId } from '../item-id.js';
import { formatJson, jsonSelection } from '../output/json.js';
import { paint, write } from '../output/mode.js';
import type { IO } from '../io.js';
import { escapeText } from '../../text/escape-name.js';

/** One platform's answer for one file. */
export interface PlatformVerdict {
  platform: PlatformId;
  /** The row it was judged by ("Instagram Reels"). */
  rule: string;
  ok: boolean;
  violations: Violation[];
}

/** One checked file: a local path, or an item's file (`item` set). */
export interface CheckedFile {
  /** The path as given (or found in a folder), or "ID" / "ID #2 name.jpg" for an item's files. */
  file: string;
  item?: string;
  facts?: MediaFacts;
  /** Why it could not be judged (unreadable, not measured yet): a failure for every platform. */
  error?: string;
  platforms: PlatformVerdict[];
}

export interface CheckDeps {
  cwd: string;
  /** The library, opened only when an argument is an item id. */
  openClient?: () => Promise<{ client: Pick<ApiClient, 'get' | 'list'>; library: string }>;
  signal?: AbortSignal;
}

const MEDIA_EXTENSIONS = new Set([...Object.values(FORMATS).flatMap((f) => f.extensions), 'gif']);

/** Checks every argument for the platforms (`--for`, else each item's own targets); returns one entry per file. */
export async function runCheck(
  args: readonly string[],
  o: { for?: readonly PlatformId[] },
  deps: CheckDeps,
): Promise<CheckedFile[]> {
  const out: CheckedFile[] = [];
  let api: Awaited<ReturnType<NonNullable<CheckDeps['openClient']>>> | undefined;
  for (const arg of args) {
    const path = resolve(deps.cwd, arg);
    const st = await stat(path).catch(() => undefined);
    if (st) {
      // A pipe or a device would block the read: only files and folders are checked.
      if (!st.isFile() && !st.isDirectory()) throw new UsageError(`${arg}: not a regular file or folder.`);
      if (!o.for?.length) throw forNeeded(arg);
      const files = st.isDirectory() ? await mediaIn(path) : [path];
      if (files.length === 0) throw new UsageError(`${arg}: no video or image files in this folder.`);
      for (const f of files) out.push(await checkLocal(f, relative(deps.cwd, f) || arg, o.for));
      continue;
    }
    // Not on disk: an item id (or a short one), else a path that does not exist.
    try {
      parseIdInput(arg);
    } catch {
      throw new UsageError(`${arg}: no such file, and not an item id.`, 'Name a file, a folder or an item id.');
    }
    api ??= await (deps.openClient ?? noLibrary)();
    const id = await resolveItemId(arg, {
      client: api.client,
      library: api.library,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    const got = await api.client.get(id, deps.signal ? { signal: deps.signal } : {});
    const platforms = o.for?.length ? o.for : targetsOf(got.item.platformSettings);
    if (platforms.length === 0) throw forNeeded(arg, true);
    out.push(...checkItem(got, platforms));
  }
  return out;
}

const noLibrary = () => Promise.reject(new UsageError('Item ids need a library; none is configured.'));

function forNeeded(arg: string, item = false): UsageError {
  return new UsageError(
    `${arg}: say which platforms to check for: --for ${PLATFORM_IDS.slice(0, 3).join(',')}`,
    item
      ? 'Or keep the item’s targets in platformSettings.contentlib.targets (upload --for sets them).'
      : `Platforms: ${PLATFORM_IDS.join(', ')}`,
  );
}

/** The media files of a folder and its subfolders, in name order (hidden files skipped). */
async function mediaIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => MEDIA_EXTENSIONS.has(p.split('.').pop()!.toLowerCase()))
    .sort();
}

async function checkLocal(path: string, shown: string, platforms: readonly PlatformId[]): Promise<CheckedFile> {
  let facts: MediaFacts;
  let size: number;
  try {
    [facts, size] = await Promise.all([readMediaFactsFile(path), stat(path).then((s) => s.size)]);
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
    return unjudged(shown, err.message, platforms);
  }
  return judged({ file: shown }, facts, size, platforms, {});
}

/** An item's file(s): a video's own facts, or each carousel image's, with the item's text. */
function checkItem({ item, files }: GetResponse, platforms: readonly PlatformId[]): CheckedFile[] {
  const text = {
    ...(item.description ? { description: item.description } : {}),
    ...(item.hashtags ? { hashtags: item.hashtags } : {}),
  };
  if (item.type !== 'carousel') {
    if (!item.media) return [unjudged(item.id, notMeasured(item), platforms, item.id)];
    return [judged({ file: item.id, item: item.id }, item.media, item.fileSize ?? 0, platforms, text)];
  }
  const sorted = [...files].sort((a, b) => a.sortOrder - b.sortOrder);
  const checked = sorted.map((f, i) => {
    const file = `${item.id} #${i + 1} ${f.fileName ?? ''}`.trim();
    if (!f.media) return unjudged(file, notMeasured(item), platforms, item.id);
    return judged({ file, item: item.id }, f.media, f.fileSize ?? 0, platforms, text);
  });
  // A post of more images than a platform takes fails on each of them: the post is what fails.
  for (const platform of platforms) {
    const v = checkImageCount(sorted.length, platform);
    if (v)
      for (const c of checked) {
        const verdict = c.platforms.find((p) => p.platform === platform)!;
        verdict.violations.push(v);
        verdict.ok = false;
      }
  }
  return checked;
}

function notMeasured(item: ContentItem): string {
  return item.media === undefined
    ? 'the library does not say what this file is (its service measures no media facts): check the file itself'
    : 'the library has not measured this file yet (its sweeper will): check again later, or check the file itself';
}

function judged(
  base: { file: string; item?: string },
  facts: MediaFacts,
  fileSize: number,
  platforms: readonly PlatformId[],
  text: { description?: string; hashtags?: readonly string[] },
): CheckedFile {
  return {
    ...base,
    facts,
    platforms: platforms.map((platform) => {
      const violations = checkFor({ facts, fileSize, ...text }, platform);
      const row = ruleFor(platform, facts.kind) ?? ruleFor(platform, facts.kind === 'video' ? 'image' : 'video')!;
      return { platform, rule: row.name, ok: violations.every((v) => v.severity !== 'error'), violations };
    }),
  };
}

function unjudged(file: string, error: string, platforms: readonly PlatformId[], item?: string): CheckedFile {
  return {
    file,
    ...(item ? { item } : {}),
    error,
    platforms: platforms.map((platform) => ({ platform, rule: platform, ok: false, violations: [] })),
  };
}

/** Exit 0 when every file passes every platform (warnings allowed), else 1 (CheckFailedError). */
export class CheckFailedError extends CliError {
  constructor(failed: number, total: number) {
    super(`${failed} of ${total} file${total === 1 ? '' : 's'} would not be taken as they are (see above).`, {
      exitCode: EXIT.failure,
      hint: 'Fix what is listed and check again.',
    });
  }
}

export function checkOutcome(results: readonly CheckedFile[]): CheckFailedError | undefined {
  const failed = results.filter((r) => r.error !== undefined || r.platforms.some((p) => !p.ok)).length;
  return failed > 0 ? new CheckFailedError(failed, results.length) : undefined;
}

/** `contentlib check`. */
export async function checkCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  args: string[],
  opts: { for?: PlatformId[] },
): Promise<void> {
  const sel = jsonSelection(globals, undefined, 'check');
  const results = await interruptible(ctx, () =>
    runCheck(args, opts, {
      cwd: ctx.cwd,
      signal: ctx.signal,
      openClient: async () => {
        const { client, target } = await openApi(ctx, globals);
        return { client, library: target.label };
      },
    }),
  );
  if (sel) await write(ctx.io.stdout, await formatJson(results, sel));
  else await write(ctx.io.stdout, checkLines(ctx.io, results).join('\n') + '\n');
  const failed = checkOutcome(results);
  if (failed) throw failed;
}

/** Per file: its facts in one line, then a line per platform: ✓ pass, ! pass with warnings, ✗ fail. */
export function checkLines(io: IO, results: readonly CheckedFile[]): string[] {
  const c = paint(io);
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${c.bold(escapeText(r.file))}${r.facts ? `  ${c.dim(mediaSummary(r.facts))}` : ''}`);
    if (r.error !== undefined) {
      lines.push(`  ${c.red('✗')} ${escapeText(r.error)}`);
      continue;
    }
    for (const p of r.platforms) {
      const errors = p.violations.filter((v) => v.severity === 'error');
      const warnings = p.violations.filter((v) => v.severity === 'warning');
      const mark = errors.length > 0 ? c.red('✗') : warnings.length > 0 ? c.yellow('!') : c.green('✓');
      lines.push(`  ${mark} ${p.rule}${p.violations.length === 0 ? '' : ':'}`);
      for (const v of [...errors, ...warnings])
        lines.push(`      ${v.severity === 'warning' ? 'warning: ' : ''}${escapeText(v.message)}`);
    }
  }
  return lines;
}
