#!/usr/bin/env node
// Tiny launcher: all the code lives in dist/, built from src/ by `npm run build` (run by `npm ci`).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered here, from package.json, without loading the program: scripts call it often.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // undici parses HTTP responses with a WebAssembly build of llhttp. V8 compiles it quickly
  // (Liftoff), then again, optimised, on a background thread, and every command waited about
  // 150 ms at exit for that second compile (strace; docs/reliability.md). The responses read
  // here are small JSON bodies, so the quick compile is all we need.
  setFlagsFromString('--liftoff-only');
  // V8 drops the bytecode of functions that have not run for a while, and the code cache that a
  // first run writes as it exits (src/launch/compile-cache.ts) holds only what is left: for
  // `ls` on the embedded library 0.4 MB instead of 1.2 MB, and 0.42 s of CPU instead of 0.34 s.
  // Both flags are set before the bundle is compiled: a code cache is valid only under the
  // flags it was made with.
  setFlagsFromString('--no-flush-bytecode');
  import('../dist/launch/compile-cache.js').then(
    ({ loadCli }) => {
      const bundle = fileURLToPath(new URL('../dist/cli/main.cjs', import.meta.url));
      return loadCli(bundle, args, process.env).main();
    },
    (err) => {
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('compile-cache.js')) {
        process.stderr.write('contentlib is not built yet: run `npm run build` (or `npm ci`) in its folder.\n');
        process.exit(1);
      }
      throw err;
    },
  );
}
