// The one registration file: every command, its flags and examples. Each command module keeps
// its heavy imports (HTTP client, server, database) inside its action, so `--version` and
// `--help` load almost nothing.
import { Command, Option } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerEdit } from './commands/edit.js';
import { registerKeys } from './commands/keys.js';
import { registerLogin } from './commands/login.js';
import { registerLs } from './commands/ls.js';
import { registerRm } from './commands/rm.js';
import { registerServe } from './commands/serve.js';
import { registerShow } from './commands/show.js';
import { registerUpload } from './commands/upload.js';
import type { CliContext, GlobalOptions } from './context.js';

export function buildProgram(ctx: CliContext, version: string): Command {
  const program = new Command('contentlib')
    .description(
      'Upload and manage media in a Content Library Service. With no remote configured, works on an embedded library on this machine.',
    )
    .version(version, '-V, --version', 'print the version')
    .addOption(
      new Option(
        '--json',
        'machine-readable output (JSON; NDJSON events for upload); --json id,title keeps only those fields (docs/cli.md)',
      ),
    )
    // `--json id,title` arrives here split off by src/cli/argv.ts (see there why).
    .addOption(new Option('--json-fields <fields>').hideHelp())
    .addOption(new Option('--jq <expr>', 'filter the JSON output with a jq expression (implies --json)'))
    .addOption(new Option('-q, --quiet', 'print nothing on stderr but errors'))
    // The environment (CONTENTLIB_PROFILE, CONTENTLIB_BASE_URL, CONTENTLIB_API_KEY) is read by
    // resolveTarget (src/config/resolve.ts), not merged here: flags must win over it, and a flag's
    // base URL must never be paired with an unrelated key.
    .addOption(new Option('--profile <name>', 'use this saved profile (see contentlib login; env: CONTENTLIB_PROFILE)'))
    .addOption(
      new Option('--base-url <url>', 'service base URL, e.g. https://content.example.com (env: CONTENTLIB_BASE_URL)'),
    )
    .addOption(
      new Option(
        '--api-key <key>',
        'API key (discouraged: it lands in your shell history; use contentlib login or CONTENTLIB_API_KEY)',
      ),
    )
    .addOption(new Option('--embedded', 'use the embedded library on this machine, even if a remote is configured'))
    .addOption(new Option('--no-color', 'no colors (also NO_COLOR=1)'))
    .addOption(new Option('--verbose', 'trace each HTTP request and response (the API key is redacted)'))
    // Every subcommand's --help lists these global flags in their own section.
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride()
    .hook('preAction', async (_program, action) => {
      if (action.optsWithGlobals<GlobalOptions>().quiet) (await import('./output/quiet.js')).silenceStderr(ctx.io);
    });

  // Commands register here, one line each.
  registerUpload(program, ctx);
  registerLs(program, ctx);
  registerShow(program, ctx);
  registerEdit(program, ctx);
  registerRm(program, ctx);
  registerLogin(program, ctx); // login and logout
  registerAuth(program, ctx);
  registerConfig(program, ctx);
  registerCompletion(program, ctx);
  registerServe(program, ctx);
  registerKeys(program, ctx);
  void ctx;
  return program;
}
