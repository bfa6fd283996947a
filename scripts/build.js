// Builds dist/ from src/: one bundle for the CLI (dist/cli/main.js) whose commands, the server
// and the database layer are split into chunks loaded only when a command needs them.
// Why bundle: resolving and reading ~600 small module files was about half the start-up time
// of every command (node --cpu-prof; docs/reliability.md). Type checking is `npm run lint`'s job.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  // man.ts: the man page's generator, run below (not loaded by the CLI).
  entryPoints: ['src/cli/main.ts', 'src/cli/man.ts'],
  outdir: 'dist',
  outbase: 'src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  // The native addon is loaded from node_modules as installed. jq-wasm (--jq) too: its 1.3 MB of
  // Emscripten output finds its own WebAssembly and stays out of the bundle as published.
  external: ['better-sqlite3', 'jq-wasm'],
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundled CommonJS packages call require() for Node's built-ins; ESM has no require, so each
  // chunk gets one made for it.
  banner: {
    js: "import { createRequire as __contentlibRequire } from 'node:module'; const require = __contentlibRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// The man page, from the same command definitions as --help (shipped as man/contentlib.1).
const { manPage } = await import('../dist/cli/man.js');
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// No build date unless asked for (SOURCE_DATE_EPOCH): the page is the same on every machine.
const date = process.env.SOURCE_DATE_EPOCH
  ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000).toISOString().slice(0, 10)
  : '';
await mkdir(new URL('../man', import.meta.url), { recursive: true });
await writeFile(new URL('../man/contentlib.1', import.meta.url), manPage(pkg.version, date));
