// The entry of the GitHub Action (action.yml runs dist/action/main.cjs with node): runs
// contentlib from this same checkout (CONTENTLIB_CLI, set by action.yml) and exits with its status.
import { join } from 'node:path';
import { runAction } from './run.js';

async function main(): Promise<void> {
  const cli = process.env.CONTENTLIB_CLI ?? join(__dirname, '..', '..', 'bin', 'contentlib.js');
  const code = await runAction(process.env, {
    cli: [process.execPath, cli],
    log: (line) => process.stdout.write(`${line}\n`),
    stderr: (chunk) => process.stderr.write(chunk),
  });
  process.exitCode = code;
}

main().catch((err: unknown) => {
  process.stdout.write(`::error::contentlib action failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
