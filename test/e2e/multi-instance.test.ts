// Three `contentlib serve` processes on one PostgreSQL and one shared files folder (the suite is
// test/support/multi-instance.ts; multi-instance-s3.test.ts runs it on an S3 bucket).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { multiInstanceSuite } from '../support/multi-instance.js';

const entries = (dir: string) => readdir(dir).catch(() => [] as string[]);

multiInstanceSuite('a shared files folder', async (dataDir) => ({
  args: [],
  env: {},
  // Final objects live in objects/<aa>/…, staging ones in staging/<fileId>.
  async objects() {
    let final = 0;
    for (const dir of await entries(join(dataDir, 'objects')))
      final += (await entries(join(dataDir, 'objects', dir))).length;
    return { final, staging: (await entries(join(dataDir, 'staging'))).length };
  },
  putOrigin: (instanceUrl) => `${instanceUrl}/`,
  stop: async () => undefined,
}));
