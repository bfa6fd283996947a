// Builds dist/ from src/: one bundle for the CLI (dist/cli/main.js) whose commands, the server
// and the database layer are split into chunks loaded only when a command needs them.
// Why bundle: resolving and reading ~600 small module files was about half the start-up time
// of every command (node --cpu-prof; docs/reliability.md). Type checking is `npm run lint`'s job.
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist',
  outbase: 'src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  // The native addon, and the PostgreSQL and S3 clients (loaded only when --db or --storage names
  // them), are loaded from node_modules as installed.
  external: ['better-sqlite3', 'pg', '@aws-sdk/*'],
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
