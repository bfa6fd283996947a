// What an upload passes over, said before anything is sent, in each output mode: a "Skipped"
// block on a terminal, one `skipped` line per file in logs, `skipped` NDJSON events with --json.
// System files are counted on one line for people (each is an event for programs). And with
// --json, a plan refused for its problems still tells a CI log why: `problem` events and a
// summary on stdout.
import { basename } from 'node:path';
import { formatProblem, type PlanProblem } from '../../rules/problem.js';
import type { UploadPlan } from '../../upload/plan/plan.js';
import type { TargetInfo } from '../target.js';
import { emptySummary } from './progress-json.js';
import type { FileObject } from './upload-ndjson.js';
import { skippedLines, type SkippedFile } from '../../upload/plan/skips.js';
import type { IO } from '../io.js';
import { write } from './mode.js';

export type SkipOutput = 'tty' | 'plain' | 'json';

/** How an NDJSON object becomes its line: JSON, or the output of --jq (progress.ts passes the same). */
export type JsonLine = (value: object) => Promise<string> | string;
const plainJson: JsonLine = (v) => `${JSON.stringify(v)}\n`;

/** The `file` object of the NDJSON events for a file known by its path only (not read, or not planned). */
export function fileObject(path: string, item: number | null = null): FileObject {
  return { path, name: basename(path), size: null, item, role: 'file' };
}

/** The `skipped` NDJSON event of a file the plan passes over: its `file` object, and its path as messages show it. */
export function skippedEvent(s: SkippedFile) {
  return {
    type: 'skipped' as const,
    file: fileObject(s.absPath ?? s.path),
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
export async function reportSkipped(
  io: IO,
  output: SkipOutput,
  skipped: readonly SkippedFile[],
  line: JsonLine = plainJson,
): Promise<void> {
  if (output === 'json') {
    for (const s of skipped) await write(io.stdout, await line(skippedEvent(s)));
    return;
  }
  for (const line of skippedText(skipped, output)) await write(io.stderr, `${line}\n`);
}

/**
 * The `problem` NDJSON event: one rule a file (or item, flag, manifest) breaks. `file` is the
 * same object as in every other event, null when the problem is about no one file; `subject` is
 * what the message names.
 */
export function problemEvent(p: PlanProblem, leftOut = false) {
  return {
    type: 'problem' as const,
    file: p.path === undefined ? null : fileObject(p.path, p.item ?? null),
    subject: p.file,
    rule: p.rule,
    actual: p.actual,
    message: p.message,
    hint: p.hint ?? null,
    leftOut,
  };
}

/** With --json, a refused plan: its skipped files, its problems, and a summary saying nothing was sent. */
export async function reportRefusedPlanJson(
  io: IO,
  plan: UploadPlan,
  line: JsonLine = plainJson,
  o: { target: TargetInfo | null; exitCode: number; ms: number } = { target: null, exitCode: 2, ms: 0 },
): Promise<void> {
  await reportSkipped(io, 'json', plan.skipped, line);
  for (const p of plan.problems) await write(io.stdout, await line(problemEvent(p)));
  const summary = emptySummary({
    target: o.target,
    exitCode: o.exitCode,
    refused: true,
    problems: plan.problems.length,
    skippedFiles: plan.skipped.length,
    ms: o.ms,
  });
  await write(io.stdout, await line(summary));
}

/**
 * --skip-invalid: what the plan left out, before anything is sent: `problem` events with
 * `leftOut: true` on stdout with --json, else a block (terminal) or lines (logs) on stderr.
 */
export async function reportLeftOut(io: IO, output: SkipOutput, plan: UploadPlan, line: JsonLine = plainJson) {
  if (plan.leftOut.length === 0) return;
  if (output === 'json') {
    for (const l of plan.leftOut) for (const p of l.problems) await write(io.stdout, await line(problemEvent(p, true)));
    return;
  }
  const files = plan.leftOut.reduce((n, l) => n + l.paths.length, 0);
  const lines = plan.leftOut.flatMap((l) => l.problems.map(formatProblem));
  if (output === 'plain') {
    for (const l of lines) await write(io.stderr, `left out  ${l}\n`);
    return;
  }
  await write(io.stderr, `Left out ${files} file${files === 1 ? '' : 's'} (invalid, not uploaded; --skip-invalid):\n`);
  for (const l of lines) await write(io.stderr, `  ${l}\n`);
}
