// contentlib edit <id>: changes title, description, status, hashtags and platform settings, or
// (in a run of their own) a carousel's images. Metadata flags become a PATCH body in
// ./edit-flags.ts, checked locally before the request; the image flags are ./edit-images.ts.
import { readFile } from 'node:fs/promises';
import type { ApiClient } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { formatProblem } from '../../rules/problem.js';
import { inspectCarouselImage } from '../../upload/send/carousel-image.js';
import { inspectThumbnail, sendThumbnail } from '../../upload/send/thumbnail.js';
import { interruptible, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { parseIdInput, resolveItemId } from '../item-id.js';
import { RejectedFilesError, UsageError } from '../errors.js';
import { THUMBNAIL_WHAT } from '../flags.js';
import { printItem } from '../output/item.js';
import { ITEM_FIELDS, checkJq, jsonSelection } from '../output/json.js';
import { outputMode } from '../output/mode.js';
import { type EditFlags, buildPatch, needsCurrent } from './edit-flags.js';
import { type ImageFlags, imageFlagsGiven } from './edit-image-flags.js';
import { type ImageEditResult, runImageEdit } from './edit-images.js';
import { escapeText } from '../../text/escape-name.js';
import { editWhereCommand } from './bulk.js';

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

export interface EditCliOptions extends Omit<EditFlags, 'platformJson'>, ImageFlags {
  platformJson?: string;
  /** --thumbnail IMG: uploaded (presign thumbnail:true + PUT), then PATCHed as thumbnailKey. */
  thumbnail?: string;
  /** Shows what the image flags (or a --where change) would do; changes nothing. */
  dryRun?: boolean;
  /** A query: change every item it matches (./bulk.ts). */
  where?: string;
  /** With --where: do not ask. */
  yes?: boolean;
}

/** `--add-hashtag` from `addHashtag`: how a flag is named in messages. */
const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

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

/** `edit --where QUERY`: the metadata flags, applied to every item the query matches. */
async function editWhere(ctx: CliContext, globals: GlobalOptions, opts: EditCliOptions, where: string): Promise<void> {
  const { thumbnail, order, removeImage, replaceImage, dryRun, yes, where: _where, ...rest } = opts;
  const other = Object.entries({ thumbnail, order, removeImage, replaceImage })
    .filter(([, v]) => v !== undefined)
    .map(([k]) => flagName(k));
  if (other.length > 0)
    throw new UsageError(
      `--where changes the metadata of many items; ${other.join(', ')} changes one item's files.`,
      'Run contentlib edit ID for each item whose files change.',
    );
  const flags: EditFlags = {
    ...rest,
    platformJson: opts.platformJson === undefined ? undefined : await readPlatformJson(opts.platformJson, ctx),
  };
  await editWhereCommand(ctx, globals, {
    where,
    flags,
    ...(yes ? { yes } : {}),
    ...(dryRun ? { dryRun } : {}),
  });
}

/** `contentlib edit <id>`: flags (and a --thumbnail) checked first, then one PATCH. */
export async function editCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string | undefined,
  opts: EditCliOptions,
): Promise<void> {
  if (opts.where !== undefined) {
    if (id !== undefined)
      throw new UsageError(
        `Give an id or --where, not both (got ${id} and --where).`,
        "contentlib edit ID … changes one item; contentlib edit --where 'status:draft' … every match.",
      );
    return editWhere(ctx, globals, opts, opts.where);
  }
  if (id === undefined)
    throw new UsageError(
      'Name the item to change, or --where QUERY to change every item a query matches.',
      "For example: contentlib edit ID --status scheduled, or contentlib edit --where '#summersale status:draft' --status scheduled",
    );
  const { thumbnail, order, removeImage, replaceImage, dryRun, yes: _yes, ...rest } = opts;
  parseIdInput(id);
  const images: ImageFlags = { order, removeImage, replaceImage };
  const metadata = Object.entries({ ...rest, thumbnail })
    .filter(([, v]) => v !== undefined)
    .map(([k]) => flagName(k));
  if (imageFlagsGiven(images).length > 0) return imagesCommand(ctx, globals, id, images, metadata, dryRun);
  if (dryRun)
    throw new UsageError(
      '--dry-run previews a change of a carousel’s images: --order, --remove-image or --replace-image.',
      'Metadata changes are checked before they are sent; see the item first with contentlib show ID.',
    );
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

/**
 * The image flags, one at a time and never with metadata flags (each moves the positions the
 * others read): checked, a replacement image inspected, all before anything is sent.
 */
async function imagesCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  images: ImageFlags,
  metadata: string[],
  dryRun: boolean | undefined,
): Promise<void> {
  const given = imageFlagsGiven(images);
  if (given.length > 1)
    throw new UsageError(
      `${given.join(' and ')} cannot be combined: each moves the positions the other reads.`,
      'Run contentlib edit once for each change, in the order you mean; contentlib show prints the positions.',
    );
  if (metadata.length > 0)
    throw new UsageError(
      `${given[0]} cannot be combined with ${metadata.join(', ')}: change the images and the item's details in two runs of contentlib edit.`,
    );
  if (images.replaceImage !== undefined && images.replaceImage.length !== 2)
    throw new UsageError(
      `--replace-image takes two values, which image (a position from 1 or a file name) and the new image file; got ${images.replaceImage.length}.`,
      'For example: contentlib edit ID --replace-image 2 better.jpg',
    );
  const path = images.replaceImage?.[1];
  const checked = path === undefined ? undefined : await inspectCarouselImage(path);
  if (checked && !checked.ok)
    throw new RejectedFilesError(
      checked.problems.map(formatProblem),
      'Choose a jpg, png or webp image of at most 20 MiB for --replace-image.',
      'the carousel was not changed',
    );
  const sel = jsonSelection(globals, ITEM_FIELDS, 'edit');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const { client, target } = await openApi(ctx, globals, { writes: !dryRun });
  const whole = await interruptible(ctx, () =>
    resolveItemId(id, { client, signal: ctx.signal, library: target.label }),
  );
  const result = await interruptible(
    ctx,
    () =>
      runImageEdit(
        { id: whole, images, ...(checked?.ok ? { replacement: checked.file } : {}), ...(dryRun ? { dryRun } : {}) },
        { client, now: ctx.now, sleep: ctx.sleep, policy: retryPolicy(ctx.env), signal: ctx.signal },
      ),
    'Interrupted; the carousel may or may not have been changed (check with contentlib show).',
  );
  // File names come from the service: no control character of them reaches the terminal raw.
  ctx.io.stderr.write(`${escapeText(imageOutcomeLine(result))}\n`);
  await printItem(ctx.io, outputMode(ctx.io, Boolean(sel)), result.item, result.files, ctx.now(), sel);
}

/** The line on stderr that says what happened to the images. */
export function imageOutcomeLine(r: ImageEditResult): string {
  const what = r.summary.charAt(0).toUpperCase() + r.summary.slice(1);
  switch (r.outcome) {
    case 'done':
      return `${what}.`;
    case 'unchanged':
      return 'The images are already in this order; nothing was changed.';
    case 'dry-run':
      return `Dry run, nothing was changed: ${r.summary}, as below.`;
  }
}
