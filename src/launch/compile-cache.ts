// Loads the CLI bundle (dist/cli/main.cjs) with V8's code cache, so that after the first run of a
// command its JavaScript is neither parsed nor compiled again: that was ~40 % of the CPU time of
// `ls` on the embedded library (bench/notes.md).
//
// The bundle is one CommonJS file compiled here as a vm.Script with the cached data of an earlier
// run (what v8-compile-cache does for CommonJS), and a run that had none writes, as it exits,
// what V8 compiled by then — the functions that command called. Hence one cache file per command
// line of a kind (cacheKey): `ls` does not pay for `upload`'s code, and `ls` against a remote does
// not leave out the server's code that `ls` on the embedded library runs. A cache is never
// rewritten (checking whether a run compiled more than its cache held would take V8 15–25 ms at
// every exit: bench/notes.md).
//
// Every Node takes this path. Node 22.1+ also has module.enableCompileCache, but it caches what
// V8 compiled when the file was loaded, not the functions the command ran afterwards: on Node 24
// a remote `ls` cost ~15 ms more CPU with it than with this cache (bench/notes.md).
//
// The folder stays small (pruneCache): `--help` and unknown words get no cache, a cache unused
// for MAX_AGE_MS is removed, and the total is capped at MAX_BYTES, least recently used first.
//
// The file name holds a hash of the bundle's bytes and of Node's version: V8 itself checks only
// the source's length and its own flags before it trusts cached data.
import type * as Crypto from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';

/** Global flags that take a value: that value is not a command name. */
const FLAGS_WITH_VALUE = new Set(['--profile', '--base-url', '--api-key', '--jq', '--json-fields']);

/**
 * Every command of src/cli/program.ts (test/launch/compile-cache.test.ts holds the two lists
 * together), and whether it opens the API (src/cli/api.ts): on the embedded library those also
 * run the server's code (Fastify, SQLite), against a remote they do not, so each kind keeps a
 * cache of its own; with one file per command, whichever ran first wrote it and the other
 * compiled its part again on every run (`ls --embedded` 4.6× `node -e 0` instead of 3.5×;
 * bench/notes.md). Any other word is `other`: the cache folder holds a bounded set of files,
 * whatever is typed. One table, so a new command cannot be in one list and not the other.
 */
const COMMAND_TABLE: Readonly<Record<string, 'api' | 'local'>> = {
  upload: 'api',
  ls: 'api',
  show: 'api',
  check: 'api',
  edit: 'api',
  rm: 'api',
  download: 'api',
  export: 'api',
  browse: 'api',
  login: 'local',
  logout: 'local',
  auth: 'api',
  config: 'local',
  completion: 'local',
  serve: 'local',
  keys: 'local',
  log: 'api',
  undo: 'api',
  help: 'local',
};
export const COMMANDS: readonly string[] = Object.keys(COMMAND_TABLE);
const API_COMMANDS = new Set(COMMANDS.filter((c) => COMMAND_TABLE[c] === 'api'));

/**
 * Where the cache lives: `$CONTENTLIB_HOME/cache` when set (like config, data and state, see
 * src/config/paths.ts), else `$XDG_CACHE_HOME/contentlib` or `~/.cache/contentlib`. Undefined
 * when NODE_DISABLE_COMPILE_CACHE is set, the variable Node 22 reads for its own cache.
 */
export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.CONTENTLIB_HOME) return join(resolve(env.CONTENTLIB_HOME), 'cache');
  if (env.XDG_CACHE_HOME) return join(resolve(env.XDG_CACHE_HOME), 'contentlib');
  return join(homedir(), '.cache', 'contentlib');
}

/**
 * The config file, where src/config/paths.ts and src/config/store.ts put it (this file imports
 * nothing of src/: it runs before the bundle; the unit test checks the two agree).
 */
export function configFile(env: NodeJS.ProcessEnv): string {
  if (env.CONTENTLIB_HOME) return join(resolve(env.CONTENTLIB_HOME), 'config', 'config.json');
  const base = env.XDG_CONFIG_HOME ? resolve(env.XDG_CONFIG_HOME) : join(homedir(), '.config');
  return join(base, 'contentlib', 'config.json');
}

/** The command a command line runs (`ls`, `upload`…): `none` without one, `other` for an unknown word. */
export function commandKey(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (FLAGS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return COMMANDS.includes(arg) ? arg : 'other';
  }
  return 'none';
}

/**
 * `ls --all`: the whole library, page after page, which runs long enough for V8's heap sizing to
 * matter (100,000 items peaked at 257 MB; bin/upload-heap.js bounds it to ~115 MB; bench/notes.md).
 * Its code is cached apart from a plain `ls`'s (cacheKey): the bound changes V8 flags, and a code
 * cache is valid only under the flags it was made with. `--all` after `--` is a search word.
 */
export function isWholeListing(argv: readonly string[]): boolean {
  if (commandKey(argv) !== 'ls') return false;
  const end = argv.indexOf('--');
  const at = argv.indexOf('--all');
  return at >= 0 && (end < 0 || at < end);
}

/**
 * Which library a command line will talk to, guessed the way src/config/resolve.ts decides it
 * (flags → CONTENTLIB_* environment → the config file's active profile → embedded), without
 * loading it: this runs before the bundle. `configText` reads the config file (undefined when
 * there is none). A wrong guess costs only speed, never behaviour; the unit test checks the
 * guess against resolveTarget.
 */
export function targetKind(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  configText: () => string | undefined,
): 'embedded' | 'remote' {
  const has = (flag: string) => argv.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (has('--embedded')) return 'embedded';
  if (has('--base-url') || has('--api-key') || has('--profile')) return 'remote';
  const set = (name: string) => (env[name]?.trim() ?? '') !== '';
  if (set('CONTENTLIB_BASE_URL') || set('CONTENTLIB_API_KEY') || set('CONTENTLIB_PROFILE')) return 'remote';
  try {
    const config = JSON.parse(configText() ?? '{}') as { activeProfile?: unknown };
    if (typeof config.activeProfile === 'string' && config.activeProfile !== '') return 'remote';
  } catch {
    // An unreadable config file fails the command itself, with its own message.
  }
  return 'embedded';
}

/**
 * The cache a command line uses: its command, and for a command that opens the API, the kind of
 * library it targets. None (undefined) for help (`--help`, `-h`, `help`, no command at all) and
 * for an unknown word: help runs none of a command's code and costs little to compile, and one
 * cache file per help page had made the folder grow with every page read.
 */
export function cacheKey(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  configText: () => string | undefined,
): string | undefined {
  const command = commandKey(argv);
  if (command === 'none' || command === 'other' || command === 'help') return undefined;
  if (argv.includes('--help') || argv.includes('-h')) return undefined;
  if (!API_COMMANDS.has(command)) return command;
  const name = isWholeListing(argv) ? 'ls-all' : command;
  return `${name}-${targetKind(argv, env, configText)}`;
}

/** The cache folder's bound: at most this many bytes of cache files (least recently used go first). */
export const MAX_BYTES = 8 * 1024 * 1024;
/** A cache not used for this long is removed (a command tried once, a kind of library left). */
export const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/**
 * A cache in use has its modification time set to now, at most once in this span: the age that
 * pruneCache goes by is then the time since it was last used (atime is unreliable: noatime,
 * relatime), for one utimes call a day per command.
 */
const TOUCH_AFTER_MS = 24 * 3600 * 1000;

export interface CacheEntry {
  name: string;
  size: number;
  mtimeMs: number;
}

/**
 * Which files of the cache folder to remove after `keep` was written (pure; pruneCache acts on
 * it): those of other builds of the bundle (an upgrade: their hash differs), those unused for
 * MAX_AGE_MS (another Node's, too: one switched to and back keeps its caches meanwhile), leftovers of a write that died half-way (`.tmp`, after an hour), then
 * the least recently used until the rest fits in MAX_BYTES. `keep` itself always stays.
 */
export function cacheEvictions(entries: readonly CacheEntry[], keep: string, now: number): string[] {
  const build = keep.split('_')[0]!;
  const out: string[] = [];
  const live: CacheEntry[] = [];
  for (const e of entries) {
    if (e.name === keep) continue;
    const stale = now - e.mtimeMs > MAX_AGE_MS;
    if (e.name.endsWith('.tmp')) {
      if (now - e.mtimeMs > 3600 * 1000) out.push(e.name);
    } else if (!e.name.startsWith(`${build}_`) || stale) out.push(e.name);
    else live.push(e);
  }
  let total = (entries.find((e) => e.name === keep)?.size ?? 0) + live.reduce((sum, e) => sum + e.size, 0);
  for (const e of [...live].sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= MAX_BYTES) break;
    out.push(e.name);
    total -= e.size;
  }
  return out;
}

export interface Loaded {
  /** The bundle's module.exports. */
  exports: unknown;
  /** Whether V8 took cached data from an earlier run. */
  cached: boolean;
  /** Writes the cache when this run had none (call at exit, once the command ran); never throws. */
  save(): void;
}

/** Compiles and runs the CommonJS file `bundle` (its bytes: `source`), with `cacheFile` as its V8 code cache. */
export function loadWithCodeCache(bundle: string, source: Buffer, cacheFile: string | undefined): Loaded {
  let cachedData: Buffer | undefined;
  let mtimeMs = 0;
  if (cacheFile) {
    try {
      mtimeMs = statSync(cacheFile).mtimeMs;
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache yet (or unreadable): compile from source, and write one at exit.
    }
  }
  // Node's own CommonJS wrapper, on a line of its own so that line numbers in stack traces match the file.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source.toString('utf8')}\n})`;
  const script = new vm.Script(wrapped, {
    filename: bundle,
    lineOffset: -1,
    // No importModuleDynamically: Node 20 loses it in a script compiled from cached data, so the
    // bundle holds no import() (scripts/build.js; test/e2e/compile-cache.test.ts).
    cachedData,
  });
  const cached = cachedData !== undefined && !script.cachedDataRejected;
  if (cached && cacheFile) markUsed(cacheFile, mtimeMs);
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  const mod = { exports: {} as unknown };
  fn.call(mod.exports, mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  return {
    exports: mod.exports,
    cached,
    save: () => {
      if (!cacheFile || cached) return;
      try {
        releaseHeap();
        writeCache(cacheFile, script.createCachedData());
      } catch {
        // A cache is an optimisation: a read-only or full disk must not fail the command.
      }
    },
  };
}

/**
 * Hands the emptied pages of the heap back before V8 serialises the code (a few MiB more), at the
 * exit of the first run of a command: a long run (a 10,000-file upload) still holds its heap of
 * garbage then, and that write set its peak RSS (bench/notes.md). V8's last-resort collection, as
 * src/heap/gc.ts takes it (this file imports nothing of src/: it runs before the bundle).
 */
function releaseHeap(): void {
  setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (o: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** Sets a used cache's modification time to now, once a day at most (see TOUCH_AFTER_MS). */
function markUsed(file: string, mtimeMs: number): void {
  const now = Date.now();
  if (now - mtimeMs < TOUCH_AFTER_MS) return;
  try {
    utimesSync(file, now / 1000, now / 1000);
  } catch {
    // A read-only cache still serves; it is only pruned sooner.
  }
}

function writeCache(file: string, data: Buffer): void {
  makeDirsSync(dirname(file));
  // Written aside and renamed: a run starting meanwhile reads the old file or the new, never half.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
  pruneCache(dirname(file), basename(file));
}

/**
 * Keeps the cache folder bounded (cacheEvictions), after a write: the only time it grows. Also
 * removes the folder of Node's own compile cache that versions before 0.2 kept beside it.
 */
export function pruneCache(v8Dir: string, keep: string, now = Date.now()): void {
  const entries: CacheEntry[] = [];
  for (const name of readdirSync(v8Dir)) {
    try {
      const st = statSync(join(v8Dir, name));
      entries.push({ name, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // Removed meanwhile by another run.
    }
  }
  for (const name of cacheEvictions(entries, keep, now)) rmSync(join(v8Dir, name), { force: true });
  rmSync(join(dirname(v8Dir), 'node'), { recursive: true, force: true });
}

/**
 * mkdir -p without Node 20's recursive mkdir, which spins forever where the kernel answers
 * ENOENT under an existing parent (/proc/1; see src/fs/make-dir.ts, not imported here because
 * this file must stay tiny: it runs before the bundle).
 */
function makeDirsSync(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw err;
    makeDirsSync(dirname(dir));
    mkdirSync(dir, { mode: 0o700 });
  }
}

/** SHA-1 of `bytes`, hex. node:crypto is loaded only here, when it is needed. */
function sha1(bytes: Buffer): string {
  const { createHash } = process.getBuiltinModule('node:crypto') as typeof Crypto;
  return createHash('sha1').update(bytes).digest('hex');
}

/**
 * A hash of the bundle's bytes: the one scripts/build.js wrote beside it (`<bundle>.sha1`: the
 * hash and the size), when that file names this size and is not older than the bundle (a bundle
 * edited by hand is hashed afresh); else computed here. Hashing 3.4 MB, with loading node:crypto,
 * took ~6 ms of every command (bench/notes.md).
 */
export function bundleHash(bundle: string, source: Buffer): string {
  try {
    const [hash, size] = readFileSync(`${bundle}.sha1`, 'utf8').trim().split(' ');
    if (
      hash !== undefined &&
      /^[0-9a-f]{40}$/.test(hash) &&
      Number(size) === source.length &&
      statSync(`${bundle}.sha1`).mtimeMs >= statSync(bundle).mtimeMs
    )
      return hash;
  } catch {
    // No hash file (a bundle built by other means): hash it here.
  }
  return sha1(source);
}

/** The cache file of the bundle whose hash is `hash`, for the cache key `key`, in `dir`. */
export function cacheFileFor(dir: string, hash: string, key: string): string {
  // Node's version and architecture are in the name: V8's cached data is only valid for the V8
  // that made it. The bundle's hash comes first: pruneCache removes other builds' files by it.
  return join(dir, 'v8', `${hash.slice(0, 20)}_${process.version}_${process.arch}-${key}.bin`);
}

/** Loads the CLI bundle for this command line, with whichever code cache this Node has. */
export function loadCli(bundle: string, argv: readonly string[], env: NodeJS.ProcessEnv): unknown {
  // The bundle's import() of a package in node_modules (jq-wasm), run by Node's loader from this
  // module, which Node compiled itself (scripts/build.js says why the bundle cannot).
  (globalThis as { __contentlibImport?: (specifier: string) => Promise<unknown> }).__contentlibImport = (specifier) =>
    import(specifier);
  const dir = cacheDir(env);
  const source = readFileSync(bundle);
  const readConfig = () => {
    try {
      return readFileSync(configFile(env), 'utf8');
    } catch {
      return undefined;
    }
  };
  const key = dir ? cacheKey(argv, env, readConfig) : undefined;
  const cacheFile = dir && key ? cacheFileFor(dir, bundleHash(bundle, source), key) : undefined;
  const loaded = loadWithCodeCache(bundle, source, cacheFile);
  // Only a run that succeeded writes the cache: one stopped early (a usage error, a refused
  // connection) compiled only the start of its command, and the cache is written once.
  process.once('exit', (code) => {
    if (code === 0) loaded.save();
  });
  return loaded.exports;
}
