// The CLI's typed errors and their exit codes. Anything a command throws is one of these (or an
// error of a lower layer: api/, config/); error-messages.ts turns any of them into the message
// and exit code that main.ts prints and returns.
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  auth: 4,
  notFound: 5,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  /** What the user can do about it, printed after the message ("Run: contentlib login"). */
  readonly hint: string | undefined;
  readonly exitCode: ExitCode;
  constructor(message: string, opts: { hint?: string; exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? EXIT.failure;
  }
}

/** Bad flags, arguments or input files: nothing was sent. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { hint, exitCode: EXIT.usage });
  }
}

/** A query (`ls QUERY`, `--where QUERY`, ls's search flags) that cannot be read: nothing was sent. */
export class QuerySyntaxError extends UsageError {
  constructor(message: string, hint?: string) {
    super(message, hint ?? 'See the query syntax: contentlib ls --help, or docs/cli.md (Finding items).');
  }
}

/** One line per rejected file, all reported at once before any byte is sent. */
export class RejectedFilesError extends CliError {
  readonly problems: readonly string[];
  /** `outcome` says what did not happen: an upload sends nothing, an edit changes nothing. */
  constructor(problems: readonly string[], hint?: string, outcome = 'nothing was uploaded') {
    const n = problems.length;
    super(`${n} problem${n === 1 ? '' : 's'} found; ${outcome}:\n${problems.map((p) => `  ${p}`).join('\n')}`, {
      hint,
      exitCode: EXIT.usage,
    });
    this.problems = problems;
  }
}

export class AuthError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { hint, exitCode: EXIT.auth });
  }
}

export class NotFoundError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { hint, exitCode: EXIT.notFound });
  }
}

/** Some items were done and some failed; the command already reported which. */
export class PartialError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { hint, exitCode: EXIT.partial });
  }
}

/** Ctrl-C, or a prompt answered "no". */
export class InterruptedError extends CliError {
  constructor(message = 'Interrupted.', hint?: string) {
    super(message, { hint, exitCode: EXIT.interrupted });
  }
}
