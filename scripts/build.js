// Builds dist/ from src/:
// - dist/cli/main.cjs: the whole CLI, server and database layer included, as ONE CommonJS file.
//   Why bundle: resolving and reading ~600 small module files was about half the start-up time
//   of every command (node --cpu-prof; docs/reliability.md). Why CommonJS and one file: Node 20
//   can reuse V8's compiled code only for scripts, not ES modules (src/launch/compile-cache.ts).
//   Modules that src/ imports with import() stay lazy inside the file: esbuild wraps each in a
//   function run on first use, so `--help` still evaluates neither the server nor zod.
// - dist/launch/compile-cache.cjs: the small loader bin/contentlib.js runs first (CommonJS too:
//   a process that loads no ES module skips Node's ES module loader, ~10 ms per command).
// Type checking is `npm run lint`'s job.
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

// The published package installs only its `dependencies`, so those are what the bundle may
// leave to node_modules (jq-web, for --jq: its Emscripten output finds its own WebAssembly
// file beside it); every other package it uses is a
// devDependency, bundled here. scripts/check-package.sh proves the installed result runs.
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// Libraries used only when configured (a PostgreSQL database, an S3 store) are bundled too, but
// each into a file of its own beside the CLI bundle (VENDORED), which the bundle requires on
// first use: they cost nothing at install, and nothing at start-up either. In the CLI bundle,
// even unevaluated, their 1.1 MB cost every command ~13 ms of CPU (bench/notes.md): the file is
// read, and the bundle's top level creates a wrapper for each of their modules. pg asks for its
// optional native binding, pg-native, only when told to (we never do): it stays out, as it is on
// most machines (also in scripts/check-package.sh). So does the AWS SDK's optional native signer
// (@aws-sdk/signature-v4-crt), needed only for SigV4a multi-region access points, which
// contentlib never signs for.
const OPTIONAL_NEVER_BUNDLED = ['pg-native', '@aws-sdk/signature-v4-crt'];
const external = [...Object.keys(pkg.dependencies ?? {}), ...OPTIONAL_NEVER_BUNDLED];
/** Package → [the file beside dist/cli/main.cjs that holds it, the export of that file it is]. */
const VENDORED = {
  pg: ['vendor-pg.cjs', 'pg'],
  '@aws-sdk/client-s3': ['vendor-aws.cjs', 's3'],
  '@aws-sdk/s3-request-presigner': ['vendor-aws.cjs', 'presigner'],
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22.12',
  external,
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

// src/ loads a few of Node's modules with import(). In a script compiled from V8's code cache,
// Node 20 has lost the callback that answers import() ("A dynamic import callback was not
// specified"), so the bundle must not contain one: each such import becomes a require() of the
// built-in, run on first use, with the same named exports.
const builtinImportsAsRequire = {
  name: 'builtin-imports-as-require',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, namespace: 'builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

// undici's HTTP/2 client is used only when a connection negotiates h2, which it offers only with
// allowH2, and contentlib never sets it. Its module loads node:http2 (with tls): ~10 ms of CPU
// per API command (bench/notes.md). It is left out; reaching it would be a bug, said as one.
const withoutHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/ }, () => ({
      contents:
        "module.exports = function connectH2 () { throw new Error('contentlib is built without HTTP/2 (allowH2 is never set)') }",
      loader: 'js',
    }));
  },
};

// In the CLI bundle, a vendored package is a one-line module that requires its file (kept out of
// the bundle), run when the code that imports the package first runs.
const vendored = {
  name: 'vendored-packages',
  setup(b) {
    const names = Object.keys(VENDORED).map((n) => n.replace(/[/\\-]/g, '\\$&'));
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) => ({
      path: args.path,
      namespace: 'vendored',
    }));
    b.onResolve({ filter: /^\.\/vendor-[a-z]+\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'vendored' }, (args) => {
      const [file, name] = VENDORED[args.path];
      return { contents: `module.exports = require(${JSON.stringify(`./${file}`)}).${name};`, loader: 'js' };
    });
  },
};
const vendorFiles = {};
for (const [pkgName, [file, name]] of Object.entries(VENDORED)) {
  vendorFiles[file] = `${vendorFiles[file] ?? ''}exports.${name} = require(${JSON.stringify(pkgName)});\n`;
}

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli/main.cjs',
    format: 'cjs',
    // import.meta does not exist in CommonJS: src/ uses only its url, which is the file's own.
    define: { 'import.meta.url': '__contentlibFileUrl' },
    plugins: [builtinImportsAsRequire, withoutHttp2, vendored],
    banner: { js: 'var __contentlibFileUrl=require("node:url").pathToFileURL(__filename).href;' },
    // The bundled packages' licence comments in dist/cli/main.cjs.LEGAL.txt, not in the bundle:
    // one of them is not ASCII (see the check below).
    legalComments: 'external',
  }),
  // Loaded by Node's own require, not as a cached script: import() may stay in them.
  ...Object.entries(vendorFiles).map(([file, contents]) =>
    build({
      ...common,
      stdin: { contents, resolveDir: new URL('..', import.meta.url).pathname, loader: 'js' },
      outfile: `dist/cli/${file}`,
      format: 'cjs',
    }),
  ),
  build({
    ...common,
    entryPoints: ['src/launch/compile-cache.ts'],
    outfile: 'dist/launch/compile-cache.cjs',
    format: 'cjs',
  }),
  // The GitHub Action's entry (action.yml): zod and Node's modules only, one file.
  build({
    ...common,
    entryPoints: ['src/action/main.ts'],
    outfile: 'dist/action/main.cjs',
    format: 'cjs',
  }),
]);

// import() of a package left in node_modules (none today: jq-web is required) cannot stay either: it goes
// through __contentlibImport, which dist/launch/compile-cache.cjs defines with Node's own import().
const cliFile = new URL('../dist/cli/main.cjs', import.meta.url);
let text = await readFile(cliFile, 'utf8');
for (const dep of external) {
  text = text.replaceAll(`import("${dep}")`, `globalThis.__contentlibImport("${dep}")`);
}
await writeFile(cliFile, text);
// Its hash and size beside it, written after it: the launcher keys its code cache by the hash
// without hashing 3.4 MB on every run (src/launch/compile-cache.ts, bundleHash).
const bytes = Buffer.from(text);
await writeFile(
  new URL('../dist/cli/main.cjs.sha1', import.meta.url),
  `${createHash('sha1').update(bytes).digest('hex')} ${bytes.length}\n`,
);
const left = text.match(/(?<![\w$.])import\("[^"]*"\)/g);
if (left) throw new Error(`dist/cli/main.cjs still calls import(): ${[...new Set(left)].join(', ')}`);
// The bundle must be ASCII: one character outside it (esbuild escapes strings, but not the text
// of a tagged template or a regular expression literal) makes V8 hold the whole 2.8 MB source as a
// two-byte string, which cost every command ~4 ms of start-up (bench/notes.md, issue 33). Write
// such a character as \uXXXX in the source, or put it into an html`…` template as a value
// (src/browse/chars.ts: prettier turns escapes in those templates back into the characters).
// eslint-disable-next-line no-control-regex -- the class is all of ASCII, control characters included
const wide = /[^\x00-\x7f]/.exec(text);
if (wide) {
  const line = text.slice(0, wide.index).split('\n').length;
  throw new Error(
    `dist/cli/main.cjs has a non-ASCII character (${JSON.stringify(wide[0])}) on line ${line}: ${JSON.stringify(text.slice(Math.max(0, wide.index - 60), wide.index + 20))}; write it as \\u${wide[0].charCodeAt(0).toString(16).padStart(4, '0')} in the source`,
  );
}

// The man page, from the same command definitions as --help (shipped as man/contentlib.1). Its
// generator is built aside, run, and removed: the CLI never loads it.
const manDir = new URL('../dist/man-build/', import.meta.url);
await build({
  ...common,
  entryPoints: ['src/cli/man.ts'],
  outfile: 'dist/man-build/man.mjs',
  format: 'esm',
  sourcemap: false,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const { manPage } = await import(new URL('man.mjs', manDir).href);
// No build date unless asked for (SOURCE_DATE_EPOCH): the page is the same on every machine.
const date = process.env.SOURCE_DATE_EPOCH
  ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000).toISOString().slice(0, 10)
  : '';
await mkdir(new URL('../man', import.meta.url), { recursive: true });
await writeFile(new URL('../man/contentlib.1', import.meta.url), manPage(pkg.version, date));
await rm(manDir, { recursive: true, force: true });

// The browse pages' stylesheet, script and icon are files the browse server reads and serves
// (src/browse/assets.ts): copied beside the bundle as they are, nothing fetched from a CDN.
await cp(new URL('../src/browse/assets/', import.meta.url), new URL('../dist/browse-assets/', import.meta.url), {
  recursive: true,
});
