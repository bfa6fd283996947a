// Typed errors. Anything in the program throws one of these; `main` is the one place that turns
// them into a message on stderr and an exit code (DESIGN.md section 3).

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

/** One line per rejected file, all reported at once before any byte is sent. */
export class RejectedFilesError extends CliError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[], hint?: string) {
    const n = problems.length;
    super(`${n} problem${n === 1 ? '' : 's'} found; nothing was uploaded:\n${problems.map((p) => `  ${p}`).join('\n')}`, {
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

/** The message and exit code for anything thrown, typed or not. */
export function describeError(err: unknown, verbose = false): { message: string; exitCode: ExitCode } {
  if (err instanceof CliError) {
    const text = err.hint ? `${err.message}\n${err.hint}` : err.message;
    return { message: text, exitCode: err.exitCode };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const detail = verbose && e.stack ? `\n${e.stack}` : '';
  return {
    message: `Unexpected error: ${e.message}${detail}\nThis is a bug in contentlib; run again with --verbose and report what it prints.`,
    exitCode: EXIT.failure,
  };
}
