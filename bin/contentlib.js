#!/usr/bin/env node
// Tiny launcher: all the code lives in dist/, built from src/ by `npm run build` (run by `npm ci`).
// CommonJS (bin/package.json), as is everything it loads: a process that loads no ES module
// never starts Node's ES module loader, which cost every command ~10 ms (bench/notes.md).
'use strict';

// Node 22, 24 and 26 are supported (package.json's engines). An older Node would fail somewhere
// deep (node:sqlite's transactions need Node 22.16): say what to install instead, and nothing else.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 16)) {
  process.stderr.write(
    `contentlib needs Node.js 22 (22.16 or later), 24 or 26; this is Node.js ${process.versions.node}.\n` +
      'Install a supported Node.js (https://nodejs.org/en/download, or nvm install 24), then run contentlib again.\n',
  );
  process.exit(1);
}
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered here, from package.json, without loading the program: scripts call it often.
  const pkg = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { setFlagsFromString } = require('node:v8');
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
  let loader;
  try {
    loader = require('../dist/launch/compile-cache.cjs');
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('compile-cache.cjs')) {
      process.stderr.write('contentlib is not built yet: run `npm run build` (or `npm ci`) in its folder.\n');
      process.exit(1);
    }
    throw err;
  }
  // Only `upload`, `download`, `export` and `ls --all` run long enough for V8's heap sizing to matter
  // (bin/upload-heap.js: a 1 GiB download without it peaked ~37 MB above its start), and `serve`,
  // sized its own way (serveV8Flags). The command is found as the code cache finds it (after
  // global flags such as --profile), so every run of one compiles, and caches its code, under the
  // same flags.
  const command = loader.commandKey(args);
  let heap;
  if (['upload', 'download', 'export'].includes(command)) {
    if (command !== 'download') oneMallocArena(command === 'upload' ? uploadV8Flags() : []);
    heap = require('./upload-heap.js').prepareUploadHeap();
  } else if (command === 'serve') for (const flag of serveV8Flags()) setFlagsFromString(flag);
  else if (loader.isWholeListing(args)) heap = require('./upload-heap.js').prepareUploadHeap();
  const cli = loader.loadCli(join(__dirname, '../dist/cli/main.cjs'), args, process.env);
  // The bound measures growth from the loaded program (bin/upload-heap.js).
  heap?.start();
  cli.main();
}

/**
 * `serve`'s heap, sized for a process whose live heap is small (~16 MB) while gigabytes of bodies
 * and thousands of requests pass through it (issue 41, bench/notes.md). V8 reads both flags each
 * time it sizes a space, so they apply to this heap; they are set here, before the bundle is
 * compiled, as a code cache is valid only under the flags it was made with.
 *
 * - The old generation's next limit at 3× what is live after a full collection. V8 picks that
 *   factor from how fast the program allocates against how fast it collects; `serve` allocates
 *   slowly on its heap (the bodies are outside it), so V8 kept the limit a few MB above the live
 *   heap, and incremental marking restarted every 30–50 ms while a body arrived: ~40 ms of CPU
 *   each time, 0.6–0.9 s per GiB received. At 3× (with the bodies' scavenges,
 *   src/heap/scavenge.ts) 0–2 full collections per GiB instead of 28–44.
 * - The young generation kept at its first size, as `upload`'s (bin/upload-heap.js): under a
 *   bulk upload many requests' objects survive a scavenge, and V8 grew the young generation to
 *   its largest, which set `serve`'s peak: 279–284 MiB with 8 uploads at once on PostgreSQL + S3,
 *   177–180 MiB with it kept (files/s no lower: 35.9–38.1 against 30.9).
 */
function serveV8Flags() {
  return ['--heap-growing-percent=200', '--semi-space-growth-factor=1'];
}

/**
 * V8 flags that only apply when V8 starts, for `upload`'s replaced process (oneMallocArena).
 * A young generation of 2 × 2 MiB instead of 2 × 1 MiB (bin/upload-heap.js keeps it from
 * growing): planning 100,000 files allocates ~200 MB of short-lived records in `decide`'s 0.3–0.7 s,
 * and with 1 MiB scavenges came often enough to promote many of them; the pages V8 committed
 * for them set the run's peak in one run of two (13 interleaved runs each: peak RSS median 115
 * against 123 MB, 10 of 13 under 120 MB against 6 of 13; issue 41, bench/notes.md).
 */
function uploadV8Flags() {
  return ['--min-semi-space-size=2'];
}

/**
 * The long commands (upload, its --watch for days, export) on one malloc arena. glibc gives each
 * thread that allocates its own arena and rarely hands their memory back: a watch grew about
 * 2.5 KB per uploaded file (110 → 125 MiB over 6,000 uploads), outside the JS heap; with one
 * arena it stays flat (106 → 107 MiB over 5,000; bench/notes.md). The setting is read when the
 * process starts, so the process replaces itself (same pid: Ctrl-C, kill and the journal's lock
 * behave as before; one more Node start-up) with it set, unless the user has set it. Not
 * `download`: with its body's buffers scavenged as they go (src/heap/scavenge.ts), a 1 GiB
 * download hashed on a worker thread peaks at 86–88 MiB without it against 84–85 MiB with it,
 * and the second start cost 20–50 ms of its wall, 3 % of that download (1.06 against 1.09 s,
 * medians of 6 interleaved rounds; issue 41, bench/notes.md).
 * Linux only: other systems' allocators do not read it. `flags`: V8 flags for the replaced
 * process, read as it starts (uploadV8Flags).
 */
function oneMallocArena(flags) {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return;
  // Help runs for a moment: not worth a second start-up.
  if (process.argv.includes('--help') || process.argv.includes('-h')) return;
  if (typeof process.execve !== 'function') return;
  // --liftoff-only again, now where V8 reads it as it starts: set at run time (above) it keeps the
  // quick compile at exit, yet a long upload still had llhttp recompiled, optimised, once its
  // parser was hot (~100 ms into sending 100,000 files): ~22 MB of compiler memory at once, of
  // which ~8 MB stayed in the arena, the run's peak RSS (issue 41, bench/notes.md).
  const added = ['--liftoff-only', ...flags].filter((f) => !process.execArgv.includes(f));
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...added, join(__dirname, 'contentlib.js'), ...process.argv.slice(2)],
    {
      ...process.env,
      MALLOC_ARENA_MAX: '1',
    },
  );
}
