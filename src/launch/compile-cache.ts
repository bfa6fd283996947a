// Loads the CLI bundle (dist/cli/main.cjs) with V8's code cache, so that after the first run of a
// command its JavaScript is neither parsed nor compiled again: that was ~40 % of the CPU time of
// `ls` on the embedded library (bench/notes.md).
//
// Node 22.1+ has this built in (module.enableCompileCache). Node 20 has it only for scripts, not
// ES modules, which is why the bundle is one CommonJS file: it is compiled here as a vm.Script
// with the cached data of an earlier run (what v8-compile-cache does for CommonJS), and a run
// that had none writes, as it exits, what V8 compiled by then — the functions that command
// called. Hence one cache file per command line of a kind (cacheKey): `ls` does not pay for
// `upload`'s code, `ls --help` does not leave `ls` uncached, and `ls` against a remote does not
// leave out the server's code that `ls` on the embedded library runs. The set of names is
// bounded, and a cache is never rewritten (checking whether a run compiled more than its cache
// held would take V8 15–25 ms at every exit: bench/notes.md).
//
// The file name holds a hash of the bundle's bytes and of Node's version: V8 itself checks only
// the source's length and its own flags before it trusts cached data.
import type * as Crypto from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import vm from 'node:vm';

/** Global flags that take a value: that value is not a command name. */
const FLAGS_WITH_VALUE = new Set(['--profile', '--base-url', '--api-key', '--jq', '--json-fields']);

/**
 * Every command of src/cli/program.ts (test/launch/compile-cache.test.ts holds the two lists
 * together). Any other word is `other`: the cache folder holds a bounded set of files, whatever
 * is typed.
 */
export const COMMANDS: readonly string[] = [
  'upload',
  'ls',
  'show',
  'edit',
  'rm',
  'login',
  'logout',
  'auth',
  'config',
  'completion',
  'serve',
  'keys',
  'log',
  'help',
];

/**
 * The commands that open the API (src/cli/api.ts): on the embedded library they also run the
 * server's code (Fastify, SQLite), against a remote they do not. Each kind keeps a cache of its
 * own; with one file per command, whichever ran first wrote it and the other compiled its part
 * again on every run (`ls --embedded` 4.6× `node -e 0` instead of 3.5×; bench/notes.md).
 */
const API_COMMANDS = new Set(['upload', 'ls', 'show', 'edit', 'rm', 'auth', 'log']);

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
 * The cache a command line uses: its command; `-help` when it asks for help (which runs none of
 * the command's code); and for a command that opens the API, the kind of library it targets.
 */
export function cacheKey(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  configText: () => string | undefined,
): string {
  const command = commandKey(argv);
  if (argv.includes('--help') || argv.includes('-h')) return `${command}-help`;
  if (!API_COMMANDS.has(command)) return command;
  return `${command}-${targetKind(argv, env, configText)}`;
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
  if (cacheFile) {
    try {
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
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  const mod = { exports: {} as unknown };
  fn.call(mod.exports, mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  return {
    exports: mod.exports,
    cached,
    save: () => {
      if (!cacheFile || cached) return;
      try {
        writeCache(cacheFile, script.createCachedData());
      } catch {
        // A cache is an optimisation: a read-only or full disk must not fail the command.
      }
    },
  };
}

function writeCache(file: string, data: Buffer): void {
  makeDirsSync(dirname(file));
  // Written aside and renamed: a run starting meanwhile reads the old file or the new, never half.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
  // Caches of other builds of the bundle (an upgrade) are of no further use.
  const hash = basename(file).split('-')[0]!;
  for (const name of readdirSync(dirname(file))) {
    if (!name.startsWith(hash)) rmSync(join(dirname(file), name), { force: true });
  }
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
  // Node's version and architecture are part of the first field: V8's cached data is only valid
  // for the V8 that made it (the first field is what writeCache keeps when it cleans up).
  return join(dir, 'v8', `${hash.slice(0, 20)}_${process.version}_${process.arch}-${key}.bin`);
}

/** Loads the CLI bundle for this command line, with whichever code cache this Node has. */
export function loadCli(bundle: string, argv: readonly string[], env: NodeJS.ProcessEnv): unknown {
  // The bundle's import() of a package in node_modules (jq-wasm), run by Node's loader from this
  // module, which Node compiled itself (scripts/build.js says why the bundle cannot).
  (globalThis as { __contentlibImport?: (specifier: string) => Promise<unknown> }).__contentlibImport = (specifier) =>
    import(specifier);
  const dir = cacheDir(env);
  // Node 22.1+: its own cache, for any file it loads. Typed loosely: @types/node is Node 20's.
  const enable = (nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (enable) {
    if (dir) enable(join(dir, 'node'));
    return createRequire(bundle)(bundle) as unknown;
  }
  const source = readFileSync(bundle);
  const readConfig = () => {
    try {
      return readFileSync(configFile(env), 'utf8');
    } catch {
      return undefined;
    }
  };
  const cacheFile = dir ? cacheFileFor(dir, bundleHash(bundle, source), cacheKey(argv, env, readConfig)) : undefined;
  const loaded = loadWithCodeCache(bundle, source, cacheFile);
  // Only a run that succeeded writes the cache: one stopped early (a usage error, a refused
  // connection) compiled only the start of its command, and the cache is written once.
  process.once('exit', (code) => {
    if (code === 0) loaded.save();
  });
  return loaded.exports;
}
