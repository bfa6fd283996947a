// `export` in-process (runExport) with no events, no waiting and no retries: for tests that look
// only at the folder it writes or the error it throws.
import type { ApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { runExport } from '../../src/download/export.js';

export function quietExport(client: ApiClient, from: string, dir: string): ReturnType<typeof runExport> {
  return runExport(
    { dir, filters: {}, concurrency: 2, from },
    {
      api: client,
      emit: () => {},
      now: () => new Date(),
      sleep: async () => {},
      policy: NO_WAIT_RETRY,
      signal: new AbortController().signal,
    },
  );
}
