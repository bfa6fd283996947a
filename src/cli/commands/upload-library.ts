// The library an upload writes to, for `upload` and `upload --watch` alike: the API of the
// command's target (the embedded server started if that is the target) and its journal, locked
// for this run so that another upload to the same library first finishes. Closed through
// ctx.onClose.
import { lockJournal } from '../../upload/send/journal-lock.js';
import { journalTargetId, openJournal } from '../../upload/send/journal.js';
import { openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';

export async function openLockedLibrary(ctx: CliContext, globals: GlobalOptions) {
  const { client, target } = await openApi(ctx, globals, { writes: true });
  const targetId = journalTargetId(target.library.where, target.library.who);
  const lock = await lockJournal(ctx.paths.state, targetId, {
    sleep: ctx.sleep,
    signal: ctx.signal,
    onWait: (pid) =>
      ctx.io.stderr.write(`Waiting for another contentlib upload to this library (pid ${pid}) to finish…\n`),
  });
  ctx.onClose(() => lock.release());
  const journal = await openJournal(ctx.paths.state, targetId, ctx.now);
  ctx.onClose(() => journal.close());
  if (journal.warning) ctx.io.stderr.write(`Warning: ${journal.warning}\n`);
  return { client, target, journal };
}
