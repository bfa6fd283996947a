// contentlib show <id>: one item with every field, its platformSettings and a carousel's files.
import type { Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { GetResponse } from '../../api/schemas.js';
import type { CliContext, GlobalOptions } from '../context.js';

export const EMBEDDED_URL_NOTE =
  'Note: these URLs stop working when this command ends (the embedded library is served only while a command runs). To open them, serve the library with contentlib serve; see "The embedded server" in the README.';

export async function runShow(
  id: string,
  deps: { client: Pick<ApiClient, 'get'>; signal?: AbortSignal },
): Promise<GetResponse> {
  return deps.client.get(id, { signal: deps.signal });
}

export function registerShow(program: Command, ctx: CliContext): void {
  program
    .command('show')
    .description('show one item: every field, platform settings, and a carousel’s images in order')
    .argument('<id>', 'the item id (see contentlib ls)')
    .addHelpText(
      'after',
      `
Examples:
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --json id,title,status
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --jq '.files[].fileName'`,
    )
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const { openApi, interruptible } = await import('../api.js');
      const { outputMode } = await import('../output/mode.js');
      const { printItem } = await import('../output/item.js');
      const { ITEM_FIELDS, checkJq, jsonSelection } = await import('../output/json.js');
      const sel = jsonSelection(globals, ITEM_FIELDS, 'show');
      if (sel?.jq !== undefined) await checkJq(sel.jq);
      const { client, target } = await openApi(ctx, globals);
      const response = await interruptible(ctx, () => runShow(id, { client, signal: ctx.signal }));
      await printItem(ctx.io, outputMode(ctx.io, Boolean(sel)), response.item, response.files, ctx.now(), sel);
      // The embedded server stops with this command, and its URLs with it: say so to a person
      // (scripts get the bare output; the README's "embedded server" part tells them the same).
      if (target.embedded && ctx.io.stderrIsTTY && response.item.fileUrl) ctx.io.stderr.write(`${EMBEDDED_URL_NOTE}\n`);
    });
}
