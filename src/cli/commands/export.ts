// contentlib export DIR [--status S] [--type T] [--search Q]: the library as a folder that
// `contentlib upload DIR` reads back into any library (src/download/export.ts does the work,
// src/download/export-folder.ts says what is where). `--verify` compares the folder with the
// library instead (src/download/verify.ts), rclone-check style, and exits 1 on any difference.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ExportFilters } from '../../download/export-log.js';
import { LOG_NAME } from '../../download/export-log.js';
import { type ExportSummary, runExport } from '../../download/export.js';
import { sizeOnDisk } from '../../download/fetch.js';
import { type VerifyEntry, type VerifySummary, runVerify } from '../../download/verify.js';
import { formatBytes } from '../../rules/rules.js';
import type { ContentType, Status } from '../../rules/rules.js';
import { escapeName } from '../../text/escape-name.js';
import { lockJournal } from '../../upload/send/journal-lock.js';
import { interruptible, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { CliError, EXIT, InterruptedError, PartialError, UsageError } from '../errors.js';
import { createTransferProgress, heartbeatMs } from '../output/download-progress.js';
import { checkJq, formatJson, jsonSelection } from '../output/json.js';
import { write } from '../output/mode.js';
import { progressKind } from '../output/progress.js';
import { formatMs } from '../output/progress-shared.js';
import { targetLine } from '../target.js';

export interface ExportFlags {
  status?: Status;
  type?: ContentType;
  search?: string;
  concurrency: number;
  verify?: boolean;
}

function filtersOf(flags: ExportFlags): ExportFilters {
  return {
    ...(flags.status !== undefined ? { status: flags.status } : {}),
    ...(flags.type !== undefined ? { type: flags.type } : {}),
    ...(flags.search !== undefined ? { search: flags.search } : {}),
  };
}

/** `contentlib export DIR` and `contentlib export --verify DIR`. */
export async function exportCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  dir: string,
  flags: ExportFlags,
): Promise<void> {
  const sel = jsonSelection(globals, undefined, 'export');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const abs = resolve(process.cwd(), dir);
  if (flags.verify) return verifyCommand(ctx, globals, abs, dir, flags);
  const { client, target } = await openApi(ctx, globals);
  // One export into a folder at a time: two would write the same files and the same log.
  const where = await realpath(abs).catch(() => abs);
  const lock = await lockJournal(
    ctx.paths.state,
    `export-${createHash('sha256').update(where).digest('hex').slice(0, 16)}`,
    {
      sleep: ctx.sleep,
      signal: ctx.signal,
      onWait: (pid) =>
        ctx.io.stderr.write(`Waiting for another contentlib export into ${dir} (pid ${pid}) to finish…\n`),
    },
  );
  ctx.onClose(() => lock.release());
  const progress = createTransferProgress(progressKind(ctx.io, Boolean(sel)), ctx.io, {
    line: (v) => formatJson(v, sel ?? {}, false),
    heartbeatMs: heartbeatMs(ctx.env),
  });
  const started = Date.now();
  let summary: ExportSummary;
  try {
    summary = await interruptible(ctx, () =>
      runExport(
        {
          dir: abs,
          filters: filtersOf(flags),
          concurrency: flags.concurrency,
          from: targetLine(target.info).replace(/^\u2192 /, ''),
        },
        {
          api: client,
          emit: (e) => progress.onEvent(e),
          now: ctx.now,
          sleep: ctx.sleep,
          policy: retryPolicy(ctx.env),
          signal: ctx.signal,
        },
      ),
    );
  } catch (err) {
    await progress.stop().catch(() => {});
    throw err;
  }
  const ms = Date.now() - started;
  await progress.finish({ ...summary, ms }, exportSummaryLines(summary, dir, ms));
  if (ctx.env.CONTENTLIB_REPORT_RSS)
    ctx.io.stderr.write(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  if (summary.interrupted)
    throw new InterruptedError('Interrupted; run the same command again to resume where it stopped.');
  if (summary.failed > 0) {
    const done = summary.new + summary.changed + summary.unchanged;
    const hint = 'Run the same command again: what is in the folder is kept, and broken transfers resume.';
    if (done === 0) throw new CliError(`No item could be exported (see above).`, { hint, exitCode: EXIT.failure });
    throw new PartialError(
      `${summary.failed} item${summary.failed === 1 ? '' : 's'} could not be exported (see above).`,
      hint,
    );
  }
}

export function exportSummaryLines(s: ExportSummary, dir: string, ms: number): string[] {
  const parts = [`${s.new} new`, `${s.changed} changed`, `${s.unchanged} unchanged`];
  if (s.failed) parts.push(`${s.failed} failed`);
  const removed = s.removed ? `; ${s.removed} removed (no longer in the library)` : '';
  const lines = [
    `${s.interrupted ? 'Interrupted: ' : ''}${s.items} item${s.items === 1 ? '' : 's'} in ${escapeName(dir)}: ${parts.join(', ')}${removed}; ${formatBytes(s.bytes)} downloaded in ${formatMs(ms)}.`,
  ];
  if (s.left.length > 0) {
    const shown = s.left.slice(0, 5).map(escapeName).join(', ');
    lines.push(
      `Left ${s.left.length} file${s.left.length === 1 ? '' : 's'} the export did not write (or changed since): ${shown}${s.left.length > 5 ? ', …' : ''}.`,
    );
  }
  if (s.unreadableLogLines > 0)
    lines.push(
      `Note: ${s.unreadableLogLines} line(s) of ${LOG_NAME} could not be read (a run cut short); they were passed over.`,
    );
  return lines;
}

const SYMBOL: Record<VerifyEntry['status'], string> = {
  same: '=',
  'missing-here': '+',
  'missing-there': '-',
  different: '*',
};

async function verifyCommand(ctx: CliContext, globals: GlobalOptions, abs: string, dir: string, flags: ExportFlags) {
  const sel = jsonSelection(globals, undefined, 'export');
  if ((await sizeOnDisk(join(abs, LOG_NAME))) === undefined)
    throw new UsageError(
      `${dir} is not an export folder: it has no ${LOG_NAME}.`,
      `Export into it first: contentlib export ${dir}`,
    );
  const { client } = await openApi(ctx, globals);
  const given = filtersOf(flags);
  const line = (v: object) => formatJson(v, sel ?? {}, false);
  // Lines in order, one write at a time (entries arrive from several items at once).
  let chain = Promise.resolve();
  const out = (text: string | Promise<string>) => {
    chain = chain.then(async () => write(ctx.io.stdout, await text));
  };
  const summary: VerifySummary = await interruptible(ctx, () =>
    runVerify(abs, Object.keys(given).length > 0 ? given : undefined, {
      api: client,
      signal: ctx.signal,
      concurrency: flags.concurrency,
      emit: (entry) => {
        // People see the differences; scripts (--json) get every file.
        if (sel) out(line({ type: 'file', ...entry }));
        else if (entry.status !== 'same')
          out(`${SYMBOL[entry.status]} ${escapeName(entry.path)}${entry.reason ? `  (${entry.reason})` : ''}\n`);
      },
    }),
  );
  const differences = summary.missingHere + summary.missingThere + summary.different;
  if (sel) out(line({ type: 'summary', ...summary, differences }));
  await chain;
  ctx.io.stderr.write(
    `${summary.same} same, ${summary.missingHere} missing here (+), ${summary.missingThere} missing there (-), ${summary.different} different (*).\n`,
  );
  if (differences > 0)
    throw new CliError(`${differences} difference${differences === 1 ? '' : 's'} between ${dir} and the library.`, {
      hint: `Bring the folder up to date with: contentlib export ${dir}`,
      exitCode: EXIT.failure,
    });
}
