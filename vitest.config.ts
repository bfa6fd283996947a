import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: servers, env vars and temp dirs never leak between files.
    pool: 'forks',
  },
});
