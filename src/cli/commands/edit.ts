// contentlib edit <id>: changes title, description, status, hashtags and platform settings.
// Flags become a PATCH body in ./edit-flags.ts, checked locally before the request.
import { readFile } from 'node:fs/promises';
import type { ApiClient } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { formatProblem } from '../../rules/problem.js';
import { inspectThumbnail, sendThumbnail } from '../../upload/thumbnail.js';
import { interruptible, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { parseIdInput, resolveItemId } from '../item-id.js';
import { RejectedFilesError, UsageError } from '../errors.js';
import { THUMBNAIL_WHAT } from '../flags.js';
import { printItem } from '../output/item.js';
import { ITEM_FIELDS, checkJq, jsonSelection } from '../output/json.js';
import { outputMode } from '../output/mode.js';
import { type EditFlags, buildPatch, needsCurrent } from './edit-flags.js';

const thumbnailHint = `Choose ${THUMBNAIL_WHAT} for --thumbnail.`;

export interface EditDeps {
  client: Pick<ApiClient, 'get' | 'patch'>;
  signal?: AbortSignal;
}

/** Fetches the item when the change builds on it, patches, and returns the updated item. */
export async function runEdit(id: string, flags: EditFlags, deps: EditDeps): Promise<ContentItem> {
  // Check what can be checked without the item first, so a typo costs no request.
  if (!needsCurrent(flags)) {
    const body = buildPatch(flags);
    return (await deps.client.patch(id, body, { signal: deps.signal })).item;
  }
  const current = (await deps.client.get(id, { signal: deps.signal })).item;
  const body = buildPatch(flags, current);
  return (await deps.client.patch(id, body, { signal: deps.signal })).item;
}

/** --platform-json FILE, or - for stdin. */
async function readPlatformJson(source: string, ctx: CliContext): Promise<unknown> {
  let text: string;
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (err) {
      throw new UsageError(
        `Cannot read --platform-json ${source}: ${unreadableWhy(err)}.`,
        'Give a readable JSON file, or - to read standard input.',
      );
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `--platform-json ${source === '-' ? '(stdin)' : source} is not valid JSON: ${(err as Error).message}.`,
      'For example: {"youtube": {"visibility": "private"}}',
    );
  }
}

export interface EditCliOptions extends Omit<EditFlags, 'platformJson'> {
  platformJson?: string;
  /** --thumbnail IMG: uploaded (presign thumbnail:true + PUT), then PATCHed as thumbnailKey. */
  thumbnail?: string;
}

/** Why a file cannot be read, in words (the error code alone, "ENOENT", means nothing to most people). */
function unreadableWhy(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EISDIR: 'it is a folder',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
  };
  return (code && words[code]) ?? (err as Error).message;
}

/** `contentlib edit <id>`: flags (and a --thumbnail) checked first, then one PATCH. */
export async function editCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  opts: EditCliOptions,
): Promise<void> {
  const { thumbnail, ...rest } = opts;
  parseIdInput(id);
  const flags: EditFlags = {
    ...rest,
    platformJson: opts.platformJson === undefined ? undefined : await readPlatformJson(opts.platformJson, ctx),
  };
  // --thumbnail: the image is checked against the thumbnail rule before anything is sent.
  const thumb = thumbnail === undefined ? undefined : await inspectThumbnail(thumbnail);
  if (thumb && !thumb.ok)
    throw new RejectedFilesError(thumb.problems.map(formatProblem), thumbnailHint, 'the item was not changed');
  // Flags alone must make a valid change before the API (or the embedded server) is opened;
  // a placeholder stands for the thumbnail's key, which exists only after its upload.
  if (!needsCurrent(flags)) buildPatch({ ...flags, ...(thumb ? { thumbnailKey: 'pending-upload' } : {}) });
  const sel = jsonSelection(globals, ITEM_FIELDS, 'edit');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const { client, target } = await openApi(ctx, globals, { writes: true });
  const whole = await interruptible(ctx, () =>
    resolveItemId(id, { client, signal: ctx.signal, library: target.label }),
  );
  if (thumb) {
    flags.thumbnailKey = await sendThumbnail(
      thumb.file,
      { api: client, now: ctx.now, sleep: ctx.sleep, policy: retryPolicy(ctx.env) },
      ctx.signal,
    );
  }
  const item = await interruptible(
    ctx,
    () => runEdit(whole, flags, { client, signal: ctx.signal }),
    'Interrupted; the item may or may not have been changed (check with contentlib show).',
  );
  // A carousel is printed with its files, as show prints it (one item shape).
  const files = item.type === 'carousel' ? (await client.get(item.id, { signal: ctx.signal })).files : undefined;
  await printItem(ctx.io, outputMode(ctx.io, Boolean(sel)), item, files, ctx.now(), sel);
}
