import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: servers, env vars and temp dirs never leak between files.
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      // The server conformance suite again, unchanged, on PostgreSQL (test/support/backend.ts).
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/server/upload.test.ts', 'test/server/content.test.ts'],
          env: { CONTENTLIB_TEST_BACKEND: 'postgres' },
        },
      },
    ],
  },
});
