// contentlib edit <id>: changes title, description, status, hashtags and platform settings.
// Flags become a PATCH body in ./edit-flags.ts, checked locally before the request.
import type { Command } from 'commander';
import { Option } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { STATUSES, THUMBNAIL_RULE, formatBytes } from '../../rules/rules.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { RejectedFilesError, UsageError } from '../errors.js';
// edit-flags pulls in zod (via the shared schemas), so it is imported when the command runs.
import type { EditFlags } from './edit-flags.js';

/** What --thumbnail takes, from the rules table: "a jpeg, png or webp image of at most 20 MB". */
const thumbnailWhat = `a ${THUMBNAIL_RULE.formats.join(', ').replace(/, ([^,]*)$/, ' or $1')} image of at most ${formatBytes(THUMBNAIL_RULE.maxBytes)}`;
const thumbnailHint = `Choose ${thumbnailWhat} for --thumbnail.`;

export interface EditDeps {
  client: Pick<ApiClient, 'get' | 'patch'>;
  signal?: AbortSignal;
}

/** Fetches the item when the change builds on it, patches, and returns the updated item. */
export async function runEdit(id: string, flags: EditFlags, deps: EditDeps): Promise<ContentItem> {
  const { buildPatch, needsCurrent } = await import('./edit-flags.js');
  // Check what can be checked without the item first, so a typo costs no request.
  if (!needsCurrent(flags)) {
    const body = buildPatch(flags);
    return (await deps.client.patch(id, body, { signal: deps.signal })).item;
  }
  const current = (await deps.client.get(id, { signal: deps.signal })).item;
  const body = buildPatch(flags, current);
  return (await deps.client.patch(id, body, { signal: deps.signal })).item;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** --platform-json FILE, or - for stdin. */
async function readPlatformJson(source: string, ctx: CliContext): Promise<unknown> {
  let text: string;
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    const { readFile } = await import('node:fs/promises');
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

interface EditCliOptions extends Omit<EditFlags, 'platformJson'> {
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

export function registerEdit(program: Command, ctx: CliContext): Command {
  return program
    .command('edit')
    .description('change an item’s title, description, status, hashtags or platform settings')
    .argument('<id>', 'the item id (see contentlib ls)')
    .option('--title <text>', 'new title')
    .option('--description <text>', 'new description ("" clears it)')
    .addOption(new Option('--status <status>', 'new status').choices(STATUSES))
    .option('--hashtags <list>', 'replace all hashtags: "summer, #sale" ("" clears them)')
    .option('--add-hashtag <tag>', 'add a hashtag (repeatable)', collect)
    .option('--remove-hashtag <tag>', 'remove a hashtag (repeatable)', collect)
    .option(
      '--platform <path=value>',
      'set one platform setting, e.g. youtube.visibility=private; value read as JSON when it parses; =null removes it (repeatable)',
      collect,
    )
    .option('--platform-json <file>', 'merge platform settings from a JSON file (- for stdin)')
    .option('--replace-platform', 'replace all platform settings instead of merging into them')
    .option('--thumbnail <image>', `set the thumbnail: ${thumbnailWhat}`)
    .addHelpText(
      'after',
      `
Examples:
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --title "Summer sale" --status scheduled
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --add-hashtag summer --remove-hashtag winter
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --thumbnail cover.jpg
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --platform youtube.visibility=private --platform tiktok.duet=false`,
    )
    .action(async (id: string, opts: EditCliOptions, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const { thumbnail, ...rest } = opts;
      const flags: EditFlags = {
        ...rest,
        platformJson: opts.platformJson === undefined ? undefined : await readPlatformJson(opts.platformJson, ctx),
      };
      // --thumbnail: the image is checked against the thumbnail rule before anything is sent.
      const thumb =
        thumbnail === undefined
          ? undefined
          : await import('../../upload/thumbnail.js').then((m) => m.inspectThumbnail(thumbnail));
      if (thumb && thumb.problems.length > 0) {
        const { formatProblem } = await import('../../upload/plan-problem.js');
        throw new RejectedFilesError(thumb.problems.map(formatProblem), thumbnailHint, 'the item was not changed');
      }
      // Flags alone must make a valid change before the API (or the embedded server) is opened;
      // a placeholder stands for the thumbnail's key, which exists only after its upload.
      const { buildPatch, needsCurrent } = await import('./edit-flags.js');
      if (!needsCurrent(flags)) buildPatch({ ...flags, ...(thumb ? { thumbnailKey: 'pending-upload' } : {}) });
      const { openApi, interruptible } = await import('../api.js');
      const { outputMode } = await import('../output/mode.js');
      const { printItem } = await import('../output/item.js');
      const { ITEM_FIELDS, checkJq, jsonSelection } = await import('../output/json.js');
      const sel = jsonSelection(globals, ITEM_FIELDS, 'edit');
      if (sel?.jq !== undefined) await checkJq(sel.jq);
      const { client } = await openApi(ctx, globals, { writes: true });
      if (thumb) {
        const { sendThumbnail } = await import('../../upload/thumbnail.js');
        const { retryPolicy } = await import('../api.js');
        flags.thumbnailKey = await sendThumbnail(
          thumb.file,
          { api: client, now: ctx.now, sleep: ctx.sleep, policy: retryPolicy(ctx.env) },
          ctx.signal,
        );
      }
      const item = await interruptible(
        ctx,
        () => runEdit(id, flags, { client, signal: ctx.signal }),
        'Interrupted; the item may or may not have been changed (check with contentlib show).',
      );
      // A carousel is printed with its files, as show prints it (one item shape).
      const files = item.type === 'carousel' ? (await client.get(item.id, { signal: ctx.signal })).files : undefined;
      await printItem(ctx.io, outputMode(ctx.io, Boolean(sel)), item, files, ctx.now(), sel);
    });
}
