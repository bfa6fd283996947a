// What an upload passes over, said before anything is sent, in each output mode: a "Skipped"
// block on a terminal, one `skipped` line per file in logs, `skipped` NDJSON events with --json.
// System files are counted on one line for people (each is an event for programs). And with
// --json, a plan refused for its problems still tells a CI log why: `problem` events and a
// summary on stdout.
import type { UploadPlan } from '../../upload/plan.js';
import type { PlanProblem } from '../../upload/plan-problem.js';
import { skippedLines, type SkippedFile } from '../../upload/skips.js';
import type { IO } from '../io.js';
import { write } from './mode.js';

export type SkipOutput = 'tty' | 'plain' | 'json';

/** The `skipped` NDJSON event of a file the plan passes over (those of the engine name a `file`). */
export function skippedEvent(s: SkippedFile) {
  return {
    type: 'skipped' as const,
    path: s.path,
    kind: s.kind,
    reason: s.reason,
    ...(s.hint ? { hint: s.hint } : {}),
  };
}

/** The lines people see: a block with a heading on a terminal, "skipped  …" lines in a log. */
export function skippedText(skipped: readonly SkippedFile[], output: 'tty' | 'plain'): string[] {
  if (skipped.length === 0) return [];
  const lines = skippedLines(skipped);
  if (output === 'plain') return lines.map((l) => `skipped  ${l}`);
  const n = skipped.length;
  return [`Skipped ${n} file${n === 1 ? '' : 's'} (not uploaded):`, ...lines.map((l) => `  ${l}`)];
}

/** Writes what the plan skips: to stderr for people, to stdout as events with --json. */
export async function reportSkipped(io: IO, output: SkipOutput, skipped: readonly SkippedFile[]): Promise<void> {
  if (output === 'json') {
    for (const s of skipped) await write(io.stdout, `${JSON.stringify(skippedEvent(s))}\n`);
    return;
  }
  for (const line of skippedText(skipped, output)) await write(io.stderr, `${line}\n`);
}

/** The `problem` NDJSON event: one rule a file breaks. */
export function problemEvent(p: PlanProblem) {
  return { type: 'problem' as const, ...p };
}

/** With --json, a refused plan: its skipped files, its problems, and a summary saying nothing was sent. */
export async function reportRefusedPlanJson(io: IO, plan: UploadPlan): Promise<void> {
  await reportSkipped(io, 'json', plan.skipped);
  for (const p of plan.problems) await write(io.stdout, `${JSON.stringify(problemEvent(p))}\n`);
  const summary = {
    type: 'summary' as const,
    refused: true,
    problems: plan.problems.length,
    skippedFiles: plan.skipped.length,
    created: 0,
    appended: 0,
    skipped: 0,
    partial: 0,
    failed: 0,
    interrupted: false,
    bytesSent: 0,
    items: [],
  };
  await write(io.stdout, `${JSON.stringify(summary)}\n`);
}
