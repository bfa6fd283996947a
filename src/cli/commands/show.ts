// contentlib show <id>: one item with every field, its platformSettings and a carousel's files.
import type { ApiClient } from '../../api/client.js';
import type { GetResponse } from '../../api/schemas.js';
import { interruptible, openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { parseIdInput, resolveItemId } from '../item-id.js';
import { printItem } from '../output/item.js';
import { ITEM_FIELDS, checkJq, jsonSelection } from '../output/json.js';
import { outputMode } from '../output/mode.js';

export const EMBEDDED_URL_NOTE =
  'Note: these URLs stop working when this command ends (the embedded library is served only while a command runs). To look at the item, run contentlib show ID --web; to fetch the files from elsewhere, see "The embedded server" in the README.';

export async function runShow(
  id: string,
  deps: { client: Pick<ApiClient, 'get'>; signal?: AbortSignal },
): Promise<GetResponse> {
  return deps.client.get(id, { signal: deps.signal });
}

/** `contentlib show <id>`; with --web, the item's page in `contentlib browse` instead. */
export async function showCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  opts: { web?: boolean } = {},
): Promise<void> {
  if (opts.web) return showOnWeb(ctx, globals, id);
  const sel = jsonSelection(globals, ITEM_FIELDS, 'show');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  parseIdInput(id);
  const { client, target } = await openApi(ctx, globals);
  const response = await interruptible(ctx, async () => {
    const whole = await resolveItemId(id, { client, signal: ctx.signal, library: target.label });
    return runShow(whole, { client, signal: ctx.signal });
  });
  await printItem(ctx.io, outputMode(ctx.io, Boolean(sel)), response.item, response.files, ctx.now(), sel);
  // The embedded server stops with this command, and its URLs with it: say so to a person
  // (scripts get the bare output; the README's "embedded server" part tells them the same).
  if (target.embedded && ctx.io.stderrIsTTY && response.item.fileUrl) ctx.io.stderr.write(`${EMBEDDED_URL_NOTE}\n`);
}

/**
 * `show ID --web`: the item must exist (an unknown id is the same error as show's), then browse
 * runs on its page. Browse is loaded only here, when --web asks for it (a choice made at run time).
 */
async function showOnWeb(ctx: CliContext, globals: GlobalOptions, id: string): Promise<void> {
  parseIdInput(id);
  const { client, target } = await openApi(ctx, globals);
  const whole = await interruptible(ctx, async () => {
    const resolved = await resolveItemId(id, { client, signal: ctx.signal, library: target.label });
    await runShow(resolved, { client, signal: ctx.signal });
    return resolved;
  });
  const { browseCommand } = await import('./browse.js');
  await browseCommand(ctx, globals, {}, `/items/${encodeURIComponent(whole)}`);
}
