// The launcher's code cache (src/launch/compile-cache.ts): a second load takes V8's cached data,
// a changed bundle never gets an old cache, and a cache that cannot be written never fails a run.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { resolvePaths } from '../../src/config/paths.js';
import { resolveTarget } from '../../src/config/resolve.js';
import type { ConfigData } from '../../src/config/store.js';
import {
  COMMANDS,
  MAX_AGE_MS,
  MAX_BYTES,
  bundleHash,
  cacheEvictions,
  cacheDir,
  cacheFileFor,
  cacheKey,
  commandKey,
  configFile,
  loadWithCodeCache,
  pruneCache,
  targetKind,
} from '../../src/launch/compile-cache.js';
import { bufferIO } from '../support/io.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contentlib-cc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// V8 keeps what it compiled in a process and does not look at cached data for a script it has
// already seen from the same file: a file of another name is a fresh start, as a new process is.
let files = 0;
function bundle(body: string): { file: string; source: Buffer } {
  const file = join(dir, `main-${++files}.cjs`);
  // Enough code that V8 has something to cache, and a function that runs lazily.
  const text = `${body}\nexports.twice = (n) => n * 2;\nexports.file = __filename;\nexports.req = typeof require('node:path').join;\n`;
  writeFileSync(file, text);
  return { file, source: Buffer.from(text) };
}

describe('loadWithCodeCache', () => {
  it('runs the file as CommonJS, then loads it again from the cache it saved', () => {
    const { file, source } = bundle('exports.answer = 42;');
    const cacheFile = cacheFileFor(join(dir, 'cache'), bundleHash(file, source), 'ls');
    const first = loadWithCodeCache(file, source, cacheFile);
    const exports = first.exports as { answer: number; twice: (n: number) => number; file: string; req: string };
    expect(exports.answer).toBe(42);
    expect(exports.twice(21)).toBe(42);
    expect(exports.file).toBe(file);
    expect(exports.req).toBe('function');
    expect(first.cached).toBe(false);
    first.save();
    expect(existsSync(cacheFile)).toBe(true);

    const again = bundle('exports.answer = 42;');
    const second = loadWithCodeCache(again.file, again.source, cacheFile);
    expect(second.cached).toBe(true);
    expect((second.exports as { answer: number }).answer).toBe(42);
  });

  it("hands the heap's emptied pages back before it writes the cache (a long run's garbage must not lift its exit)", () => {
    const { file, source } = bundle('exports.answer = 42;');
    const loaded = loadWithCodeCache(file, source, cacheFileFor(join(dir, 'cache'), bundleHash(file, source), 'ls'));
    // ~64 MB of short-lived objects, dead by the time the cache is written, as a long run leaves them.
    const litter = () => {
      const junk: unknown[] = [];
      for (let i = 0; i < 400_000; i++) junk.push({ i, s: `x${i}`, a: [i, i + 1, i + 2] });
      return junk.length;
    };
    expect(litter()).toBe(400_000);
    const before = getHeapStatistics().total_heap_size;
    loaded.save();
    const after = getHeapStatistics().total_heap_size;
    // A plain collection would free the objects and keep their pages committed.
    expect(before - after).toBeGreaterThan(16 * 1024 * 1024);
  });

  it('gives a changed bundle a cache of its own and removes the old one when it saves', () => {
    const old = bundle('exports.answer = 1;');
    const oldCache = cacheFileFor(join(dir, 'cache'), bundleHash(old.file, old.source), 'ls');
    loadWithCodeCache(old.file, old.source, oldCache).save();
    // Same length, other bytes: V8 alone would accept the old cache for it.
    const changed = bundle('exports.answer = 2;');
    const newCache = cacheFileFor(join(dir, 'cache'), bundleHash(changed.file, changed.source), 'ls');
    expect(newCache).not.toBe(oldCache);
    const loaded = loadWithCodeCache(changed.file, changed.source, newCache);
    expect(loaded.cached).toBe(false);
    expect((loaded.exports as { answer: number }).answer).toBe(2);
    loaded.save();
    expect(readdirSync(join(dir, 'cache', 'v8'))).toEqual([newCache.split('/').pop()]);
  });

  it('ignores a cache file that is not V8 cached data, and replaces it', () => {
    const { file, source } = bundle('exports.answer = 3;');
    const cacheFile = cacheFileFor(join(dir, 'cache'), bundleHash(file, source), 'ls');
    loadWithCodeCache(file, source, cacheFile).save();
    writeFileSync(cacheFile, 'not a cache');
    const again = bundle('exports.answer = 3;');
    const loaded = loadWithCodeCache(again.file, again.source, cacheFile);
    expect(loaded.cached).toBe(false);
    expect((loaded.exports as { answer: number }).answer).toBe(3);
    loaded.save();
    expect(readFileSync(cacheFile).toString()).not.toBe('not a cache');
  });

  it('runs, and saves nothing, when the cache folder cannot be made', () => {
    const { file, source } = bundle('exports.answer = 4;');
    writeFileSync(join(dir, 'blocked'), 'a file where the folder would be');
    const cacheFile = cacheFileFor(join(dir, 'blocked'), bundleHash(file, source), 'ls');
    const loaded = loadWithCodeCache(file, source, cacheFile);
    expect((loaded.exports as { answer: number }).answer).toBe(4);
    expect(() => loaded.save()).not.toThrow();
    expect(existsSync(cacheFile)).toBe(false);
  });
});

describe('cacheEvictions: the folder stays bounded', () => {
  const now = Date.UTC(2026, 10, 1);
  const day = 24 * 3600 * 1000;
  const mb = 1024 * 1024;
  const keep = 'aaaa_v24.1.0_x64-ls-remote.bin';
  const entry = (name: string, size: number, ageDays: number) => ({ name, size, mtimeMs: now - ageDays * day });
  it.each([
    ['nothing else', [entry(keep, mb, 0)], []],
    ['another command, another Node of this build: kept', [entry('aaaa_v20.1.0_x64-ls-remote.bin', mb, 3)], []],
    [
      'another build of the bundle',
      [entry('bbbb_v24.1.0_x64-ls-remote.bin', mb, 0)],
      ['bbbb_v24.1.0_x64-ls-remote.bin'],
    ],
    [
      'unused for longer than the limit',
      [entry('aaaa_v24.1.0_x64-show-remote.bin', mb, 31)],
      ['aaaa_v24.1.0_x64-show-remote.bin'],
    ],
    ['a fresh temp file of a write in progress', [entry(`${keep}.123.tmp`, mb, 0)], []],
    ['a temp file left by a run that died', [entry(`${keep}.123.tmp`, mb, 1)], [`${keep}.123.tmp`]],
  ])('%s', (_what, others, removed) => {
    expect(cacheEvictions([entry(keep, mb, 0), ...others], keep, now)).toEqual(removed);
  });

  it('drops the least recently used until the total fits, never the file just written', () => {
    const big = MAX_BYTES / 4 + 1; // four do not fit, three do
    const entries = [
      entry(keep, big, 40), // the one just written is kept even when its time is odd
      entry('aaaa_v24.1.0_x64-a.bin', big, 5),
      entry('aaaa_v24.1.0_x64-b.bin', big, 1),
      entry('aaaa_v24.1.0_x64-c.bin', big, 9),
      entry('aaaa_v24.1.0_x64-d.bin', big, 2),
    ];
    const removed = cacheEvictions(entries, keep, now);
    expect(removed).toEqual(['aaaa_v24.1.0_x64-c.bin', 'aaaa_v24.1.0_x64-a.bin']);
    const left = entries.filter((e) => !removed.includes(e.name));
    expect(left.reduce((sum, e) => sum + e.size, 0)).toBeLessThanOrEqual(MAX_BYTES);
    expect(MAX_AGE_MS).toBe(30 * day);
  });

  it('pruneCache acts on the folder, and removes the Node compile cache folder earlier versions kept', () => {
    const v8 = join(dir, 'cache', 'v8');
    mkdirSync(v8, { recursive: true });
    mkdirSync(join(dir, 'cache', 'node', 'v24'), { recursive: true });
    writeFileSync(join(v8, keep), 'x');
    writeFileSync(join(v8, 'bbbb_v24.1.0_x64-ls-remote.bin'), 'x');
    const old = join(v8, 'aaaa_v24.1.0_x64-show-remote.bin');
    writeFileSync(old, 'x');
    utimesSync(old, (now - 40 * day) / 1000, (now - 40 * day) / 1000);
    writeFileSync(join(v8, 'aaaa_v24.1.0_x64-edit-remote.bin'), 'x');
    pruneCache(v8, keep, Date.now());
    expect(readdirSync(v8).sort()).toEqual(['aaaa_v24.1.0_x64-edit-remote.bin', keep]);
    expect(existsSync(join(dir, 'cache', 'node'))).toBe(false);
  });

  it('a cache that is used is marked as used (once a day at most), so pruning goes by last use', () => {
    const { file, source } = bundle('exports.answer = 6;');
    const cacheFile = cacheFileFor(join(dir, 'cache'), bundleHash(file, source), 'ls');
    loadWithCodeCache(file, source, cacheFile).save();
    const monthAgo = (Date.now() - 29 * day) / 1000;
    utimesSync(cacheFile, monthAgo, monthAgo);
    const again = bundle('exports.answer = 6;');
    expect(loadWithCodeCache(again.file, again.source, cacheFile).cached).toBe(true);
    expect(Date.now() - statSync(cacheFile).mtimeMs).toBeLessThan(day);
  });
});

describe('bundleHash', () => {
  const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');
  it('takes the hash written beside the bundle, and hashes the bytes when that file is missing, of another size or older', () => {
    const { file, source } = bundle('exports.answer = 5;');
    expect(bundleHash(file, source)).toBe(sha1(source));
    const written = 'a'.repeat(40);
    writeFileSync(`${file}.sha1`, `${written} ${source.length}\n`);
    expect(bundleHash(file, source)).toBe(written);
    writeFileSync(`${file}.sha1`, `${written} ${source.length + 1}\n`);
    expect(bundleHash(file, source)).toBe(sha1(source));
    writeFileSync(`${file}.sha1`, `${written} ${source.length}\n`);
    // The bundle edited after the build: its hash file no longer speaks for it.
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    expect(bundleHash(file, source)).toBe(sha1(source));
    writeFileSync(`${file}.sha1`, 'not a hash');
    expect(bundleHash(file, source)).toBe(sha1(source));
  });
});

describe('cacheDir', () => {
  it('follows CONTENTLIB_HOME, then XDG_CACHE_HOME, and is off with NODE_DISABLE_COMPILE_CACHE', () => {
    expect(cacheDir({ CONTENTLIB_HOME: '/h', XDG_CACHE_HOME: '/x' })).toBe('/h/cache');
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/contentlib');
    expect(cacheDir({})).toMatch(/\/\.cache\/contentlib$/);
    expect(cacheDir({ CONTENTLIB_HOME: '/h', NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
  });
});

describe('commandKey', () => {
  it.each([
    [['ls', '--json'], 'ls'],
    [['--json', 'show', 'abc'], 'show'],
    [['--profile', 'acme', 'upload', 'dir'], 'upload'],
    [['--base-url', 'http://x', '--api-key', 'k', 'rm', 'id'], 'rm'],
    [['--help'], 'none'],
    [[], 'none'],
    [['--jq', '.[]', 'ls'], 'ls'],
    [['../weird/Path'], 'other'],
    [['lss'], 'other'],
    [['keys', 'create'], 'keys'],
  ])('%j → %s', (argv, key) => {
    expect(commandKey(argv)).toBe(key);
  });

  it('knows every command of the program, and only those', () => {
    const ctx = { io: bufferIO(), env: {}, paths: resolvePaths({ CONTENTLIB_HOME: dir }) } as unknown as Parameters<
      typeof buildProgram
    >[0];
    const names = buildProgram(ctx, '0.0.0').commands.flatMap((c) => [c.name(), ...c.aliases()]);
    expect([...COMMANDS].sort()).toEqual([...names, 'help'].sort());
  });
});

describe('cacheKey', () => {
  const noConfig = () => undefined;
  const remoteEnv = { CONTENTLIB_BASE_URL: 'http://x', CONTENTLIB_API_KEY: 'k' };
  it.each([
    // A command that opens the API: one cache per kind of target.
    [['ls'], {}, 'ls-embedded'],
    [['ls'], remoteEnv, 'ls-remote'],
    [['ls', '--embedded'], remoteEnv, 'ls-embedded'],
    // `ls --all` runs under bin/upload-heap.js's V8 flags: a cache of its own.
    [['ls', '--all', '--json', 'id'], remoteEnv, 'ls-all-remote'],
    [['--profile', 'acme', 'ls', '--all'], {}, 'ls-all-remote'],
    [['ls', '--', '--all'], remoteEnv, 'ls-remote'],
    [['show', 'id', '--base-url=http://x', '--api-key', 'k'], {}, 'show-remote'],
    [['upload', 'dir'], { CONTENTLIB_PROFILE: 'acme' }, 'upload-remote'],
    [['auth', 'status'], {}, 'auth-embedded'],
    // Other commands have one target or none.
    [['serve', '--port', '0'], remoteEnv, 'serve'],
    [['keys', 'list'], {}, 'keys'],
    // Help runs none of the command's code, and an unknown word fails: no cache for either.
    [['upload', '--help'], remoteEnv, undefined],
    [['ls', '-h'], {}, undefined],
    [['--help'], {}, undefined],
    [[], {}, undefined],
    [['help', 'ls'], {}, undefined],
    [['nope'], {}, undefined],
  ])('%j with %j → %s', (argv, env, key) => {
    expect(cacheKey(argv, env, noConfig)).toBe(key);
  });

  it('reads the active profile from the config file, and ignores one it cannot parse', () => {
    expect(cacheKey(['ls'], {}, () => JSON.stringify({ activeProfile: 'acme', profiles: {} }))).toBe('ls-remote');
    expect(cacheKey(['ls'], {}, () => JSON.stringify({ activeProfile: '', profiles: {} }))).toBe('ls-embedded');
    expect(cacheKey(['ls'], {}, () => '{not json')).toBe('ls-embedded');
  });
});

describe('targetKind', () => {
  // The launcher guesses what src/config/resolve.ts decides; they must agree wherever
  // resolveTarget picks a library (where it throws, the command fails whatever the cache).
  const profiles = { acme: { baseUrl: 'http://acme', apiKey: 'cl_acme' } };
  const cases: Array<[string, string[], NodeJS.ProcessEnv, ConfigData]> = [
    ['nothing configured', [], {}, { profiles: {} }],
    ['--embedded', ['--embedded'], {}, { profiles, activeProfile: 'acme' }],
    ['--embedded over the environment', ['--embedded'], { CONTENTLIB_PROFILE: 'acme' }, { profiles }],
    ['--base-url and --api-key', ['--base-url', 'http://x', '--api-key', 'k'], {}, { profiles: {} }],
    [
      '--base-url= and the key from the environment',
      ['--base-url=http://x'],
      { CONTENTLIB_API_KEY: 'k' },
      { profiles: {} },
    ],
    ['--profile', ['--profile', 'acme'], {}, { profiles }],
    ['the environment', [], { CONTENTLIB_BASE_URL: 'http://x', CONTENTLIB_API_KEY: 'k' }, { profiles: {} }],
    ['blank environment', [], { CONTENTLIB_BASE_URL: ' ', CONTENTLIB_API_KEY: '' }, { profiles: {} }],
    ['CONTENTLIB_PROFILE', [], { CONTENTLIB_PROFILE: 'acme' }, { profiles }],
    ['the active profile', [], {}, { profiles, activeProfile: 'acme' }],
    ['an empty active profile', [], {}, { profiles, activeProfile: '' }],
  ];
  it.each(cases)('%s', (_what, argv, env, config) => {
    const flags = {
      embedded: argv.includes('--embedded') || undefined,
      profile: argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : undefined,
      baseUrl:
        argv.find((a) => a.startsWith('--base-url='))?.slice('--base-url='.length) ??
        (argv.includes('--base-url') ? argv[argv.indexOf('--base-url') + 1] : undefined),
      apiKey: argv.includes('--api-key') ? argv[argv.indexOf('--api-key') + 1] : undefined,
    };
    const decided = resolveTarget(flags, env, config).kind;
    expect(targetKind(['ls', ...argv], env, () => JSON.stringify(config))).toBe(decided);
  });
});

describe('configFile', () => {
  it.each([[{ CONTENTLIB_HOME: '/h' }], [{ XDG_CONFIG_HOME: '/x' }], [{}]])(
    'is where the config store keeps it: %j',
    (env) => {
      expect(configFile(env)).toBe(join(resolvePaths(env).config, 'config.json'));
    },
  );
});
