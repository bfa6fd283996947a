// The man page, generated from the same command definitions as --help (scripts/build.js writes
// it to man/contentlib.1, which the package ships): each command's help as `--help` prints it,
// examples included, plus the exit codes and the environment.
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { EXIT } from './errors.js';
import { buildProgram } from './program.js';

const EXIT_MEANING: Record<keyof typeof EXIT, string> = {
  ok: 'success',
  failure: 'failure (API or network)',
  usage: 'usage error, files rejected by the type rules, or a write with no remote configured in automation',
  partial: 'partial: some items created or deleted, some failed',
  auth: 'authentication: missing, wrong or revoked key',
  notFound: 'not found: the id is not in this brand’s library',
  interrupted: 'interrupted (Ctrl-C or SIGTERM)',
};

const ENVIRONMENT: Array<[string, string]> = [
  ['CONTENTLIB_BASE_URL, CONTENTLIB_API_KEY', 'the remote service and its key (both, or neither)'],
  ['CONTENTLIB_PROFILE', 'the saved profile to use'],
  [
    'CONTENTLIB_EMBEDDED',
    '1: with no remote configured, use the embedded library even where writes are otherwise refused (CI, no terminal)',
  ],
  ['CONTENTLIB_HOME', 'one folder for config, data and upload journals'],
  ['CI', 'set: an automated run; writes need a remote or the embedded library chosen on purpose'],
  ['NO_COLOR, FORCE_COLOR', 'turn colors off, or on'],
];

/** Escapes text for roff: backslashes, and a line that starts with a dot or quote. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

function allCommands(cmd: Command, path: string[] = []): Array<{ path: string[]; cmd: Command }> {
  return cmd.commands.flatMap((c) => {
    const p = [...path, c.name()];
    return [{ path: p, cmd: c }, ...allCommands(c, p)];
  });
}

/** What `--help` prints for one command, captured as text. */
function helpText(program: Command, ctxOut: { text: string }, path: string[]): string {
  let cmd = program;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
  ctxOut.text = '';
  cmd.outputHelp();
  return ctxOut.text.trimEnd();
}

export function manPage(version: string, date: string): string {
  const captured = { text: '' };
  const sink = new Writable({
    write: (chunk, _enc, done) => {
      captured.text += String(chunk);
      done();
    },
  });
  const ctx = {
    io: { stdin: process.stdin, stdout: sink, stderr: sink, stdoutIsTTY: false, stderrIsTTY: false },
    env: {},
  } as unknown as CliContext; // registering commands reads nothing else from the context
  const program = buildProgram(ctx, version);
  // A fixed width: the page must not depend on the terminal that built it.
  program.configureHelp({ showGlobalOptions: true, helpWidth: 78 });
  for (const { cmd } of allCommands(program)) cmd.configureHelp({ showGlobalOptions: true, helpWidth: 78 });
  const out: string[] = [
    `.TH CONTENTLIB 1 "${date}" "contentlib ${version}" "User Commands"`,
    '.SH NAME',
    `contentlib \\- ${roff(program.description())}`,
    '.SH SYNOPSIS',
    '.B contentlib',
    '[global options] command [options] [arguments]',
    '.SH DESCRIPTION',
    '.nf',
    roff(helpText(program, captured, [])),
    '.fi',
    '.SH COMMANDS',
  ];
  for (const { path } of allCommands(program)) {
    if (path[0] === 'help') continue;
    out.push(`.SS contentlib ${path.join(' ')}`, '.nf', roff(helpText(program, captured, path)), '.fi');
  }
  out.push('.SH EXIT STATUS');
  for (const [name, code] of Object.entries(EXIT) as Array<[keyof typeof EXIT, number]>)
    out.push('.TP', `.B ${code}`, roff(EXIT_MEANING[name]));
  out.push('.SH ENVIRONMENT');
  for (const [name, what] of ENVIRONMENT) out.push('.TP', `.B ${roff(name)}`, roff(what));
  out.push(
    '.SH SEE ALSO',
    'The JSON output of every command, field by field: docs/cli.md in the package. The API: docs/api.md.',
    '',
  );
  return out.join('\n');
}
