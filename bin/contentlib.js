#!/usr/bin/env node
// Tiny launcher: all the code lives in dist/, built from src/ by `npm run build` (run by `npm ci`).
import('../dist/cli/main.js').then(
  (cli) => cli.main(),
  (err) => {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('main.js')) {
      process.stderr.write('contentlib is not built yet: run `npm run build` (or `npm ci`) in its folder.\n');
      process.exit(1);
    }
    throw err;
  },
);
