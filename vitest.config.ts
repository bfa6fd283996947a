import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: servers, env vars and temp dirs never leak between files.
    pool: 'forks',
    // Most files spend their time waiting on child processes (the CLI, serve, PostgreSQL, RGW)
    // and sockets, not on the CPU: vitest's default (one file per core but one) ran them one at
    // a time on a 2-core CI machine. Three at once took the suite from 462 s to 334 s there.
    maxWorkers: Math.max(availableParallelism() - 1, 3),
    // One RADOS Gateway (Ceph's S3) for the run, started when a test first needs S3
    // (test/support/s3.ts), or the store CONTENTLIB_TEST_S3_ENDPOINT names.
    globalSetup: ['test/support/rgw-global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      // The default project runs the server conformance suite on SQLite + disk; this one runs it
      // again, unchanged, on PostgreSQL + S3 (Ceph's RADOS Gateway), skipping only the few tests of what our
      // own disk store enforces itself (test/support/backend.ts).
      {
        extends: true,
        test: {
          name: 'postgres-s3',
          include: [
            'test/server/upload.test.ts',
            'test/server/content.test.ts',
            'test/server/list-search.test.ts',
            'test/server/scopes.test.ts',
            'test/server/access.test.ts',
            'test/server/hostile-clients.test.ts',
            'test/server/carousel-images.test.ts',
            'test/server/checksum.test.ts',
            'test/server/media-facts.test.ts',
            'test/server/batch.test.ts',
            'test/server/previews.test.ts',
          ],
          env: { CONTENTLIB_TEST_BACKEND: 'postgres-s3' },
          // The run's S3 is up before a file's first test (its hooks have 30 s each).
          setupFiles: ['test/support/s3-ready.ts'],
        },
      },
    ],
  },
});
