// The GitHub Action (action.yml) as a function: read the inputs, mask the key, run
// `contentlib upload --json`, and from its NDJSON write the step's outputs ($GITHUB_OUTPUT), the
// job summary ($GITHUB_STEP_SUMMARY) and annotations; the exit status is the CLI's. Everything it
// touches comes in as `env` and `deps`, so the tests run it with a simulated runner against a
// real `contentlib serve`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  ErrorEventSchema,
  PlanSkippedEventSchema,
  ProblemEventSchema,
  type SummaryLine,
  SummarySchema,
} from '../cli/output/upload-ndjson.js';
import { InputError, readInputs, uploadArgs } from './inputs.js';
import { type RunRecord, jobSummary } from './job-summary.js';

export interface ActionDeps {
  /** The command that runs contentlib: [program, ...leading args], e.g. ['node', 'bin/contentlib.js']. */
  cli: string[];
  /** Where the step's log goes (the runner's stdout: workflow commands are read from it). */
  log: (line: string) => void;
  /** The CLI's stderr, passed through as it comes (the progress lines people read). */
  stderr: (chunk: Buffer) => void;
  cwd?: string;
}

/** Workflow command data: %, CR and LF escaped as GitHub's toolkit does. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A value for $GITHUB_OUTPUT in its heredoc form, with a delimiter the value cannot hold. */
function outputLine(name: string, value: string): string {
  const delimiter = `ghadelimiter_${randomBytes(12).toString('hex')}`;
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/** Annotations per kind: GitHub shows ten per step anyway. */
const MAX_ANNOTATIONS = 10;

/**
 * A plan refused because its paths found no file at all — every path missing or a glob that
 * matches nothing, or folders without media — what if-no-files-found decides about. One missing
 * path among others that exist is a refused plan like any other.
 */
function noFilesFound(r: RunRecord, paths: readonly string[]): boolean {
  if (!r.summary?.refused || r.problems.length === 0) return false;
  const nothing = r.problems.every((p) => p.rule === 'usage' && p.message.startsWith('nothing to upload'));
  const missing = new Set(r.problems.filter((p) => p.rule === 'exists').map((p) => p.subject));
  return nothing || (r.problems.every((p) => p.rule === 'exists') && paths.every((p) => missing.has(p)));
}

/** Runs the action; resolves with the step's exit status. */
export async function runAction(env: Record<string, string | undefined>, deps: ActionDeps): Promise<number> {
  const record: RunRecord = { problems: [], skipped: [], failed: [], exitCode: 0 };
  let inputs;
  try {
    inputs = readInputs(env);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    record.error = err.message;
    record.exitCode = 2;
    deps.log(`::error::${escapeData(err.message)}`);
    await finish(env, record);
    return 2;
  }
  // Before anything else can print it: the runner replaces the key by *** in every log line.
  if (inputs.apiKey) deps.log(`::add-mask::${escapeData(inputs.apiKey)}`);

  record.exitCode = await runCli(inputs, env, deps, record);

  if (noFilesFound(record, inputs.paths) && inputs.ifNoFilesFound !== 'error') {
    const text = `No files were found with the given paths: ${inputs.paths.join(', ')}. Nothing was uploaded.`;
    if (inputs.ifNoFilesFound === 'warn') deps.log(`::warning::${escapeData(text)}`);
    record.note = text;
    record.exitCode = 0;
  } else {
    for (const p of record.problems.filter((x) => !x.leftOut).slice(0, MAX_ANNOTATIONS))
      deps.log(
        `::error title=contentlib upload::${escapeData(`${p.subject}: ${p.message}${p.hint ? `; ${p.hint}` : ''}`)}`,
      );
    for (const f of record.failed.slice(0, MAX_ANNOTATIONS))
      deps.log(`::error title=contentlib upload::${escapeData(f.message)}`);
    if (record.error && record.problems.length === 0)
      deps.log(`::error title=contentlib upload::${escapeData(record.error)}`);
  }
  await finish(env, record);
  return record.exitCode;
}

/** Runs `contentlib upload --json`; reads its NDJSON into `record`; resolves with its exit code. */
function runCli(
  inputs: ReturnType<typeof readInputs>,
  env: Record<string, string | undefined>,
  deps: ActionDeps,
  record: RunRecord,
): Promise<number> {
  const [program, ...lead] = deps.cli;
  const child = spawn(program!, [...lead, ...uploadArgs(inputs)], {
    cwd: deps.cwd ?? env.GITHUB_WORKSPACE ?? process.cwd(),
    env: {
      ...env,
      // The CLI's own variables, from the inputs only: nothing the runner has set for other steps.
      CONTENTLIB_BASE_URL: inputs.baseUrl,
      CONTENTLIB_API_KEY: inputs.apiKey,
      CONTENTLIB_PROFILE: undefined,
      CONTENTLIB_EMBEDDED: undefined,
      CI: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.on('data', deps.stderr);
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => take(line, record));
  return new Promise((resolve) => {
    child.on('error', (err) => {
      record.error = `could not run contentlib (${deps.cli.join(' ')}): ${err.message}`;
      resolve(1);
    });
    // Killed by a signal (the job cancelled): a failure.
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** One NDJSON line into the record: what the summary and the outputs need; other events pass. */
function take(line: string, record: RunRecord): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return;
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'summary') {
    const parsed = SummarySchema.safeParse(value);
    if (parsed.success) record.summary = parsed.data;
  } else if (type === 'problem') {
    const parsed = ProblemEventSchema.safeParse(value);
    if (parsed.success) record.problems.push(parsed.data);
  } else if (type === 'skipped') {
    const parsed = PlanSkippedEventSchema.safeParse(value);
    if (parsed.success) record.skipped.push(parsed.data);
  } else if (type === 'failed') {
    const v = value as { message?: unknown; file?: { name?: unknown } };
    if (typeof v.message === 'string')
      record.failed.push({
        message: v.message,
        ...(typeof v.file?.name === 'string' ? { file: { name: v.file.name } } : {}),
      });
  } else if (type === 'error') {
    const parsed = ErrorEventSchema.safeParse(value);
    if (parsed.success) record.error = parsed.data.message;
  }
}

/** The step's outputs and job summary. */
async function finish(env: Record<string, string | undefined>, record: RunRecord): Promise<void> {
  const s: SummaryLine | undefined = record.summary;
  const ids = (outcome: string) => (s?.items ?? []).filter((i) => i.outcome === outcome && i.id).map((i) => i.id!);
  const created = ids('created');
  const appended = ids('appended');
  const touched = (field: 'updated' | 'differs') =>
    (s?.items ?? []).filter((i) => i[field].length > 0 && i.id).map((i) => i.id!);
  if (env.GITHUB_OUTPUT) {
    await appendFile(
      env.GITHUB_OUTPUT,
      outputLine('item-ids', JSON.stringify([...created, ...appended])) +
        outputLine('created-ids', JSON.stringify(created)) +
        outputLine('appended-ids', JSON.stringify(appended)) +
        outputLine('updated-ids', JSON.stringify(touched('updated'))) +
        outputLine('differing-ids', JSON.stringify(touched('differs'))) +
        outputLine('summary', s ? JSON.stringify(s) : '') +
        outputLine('exit-code', String(record.exitCode)),
    );
  }
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, jobSummary(record));
}
