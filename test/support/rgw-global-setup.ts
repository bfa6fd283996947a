// vitest's globalSetup: one RADOS Gateway for the whole run, started only when a test needs S3.
// This gives every worker the run's folder (CONTENTLIB_TEST_RGW_DIR); the first test that asks
// for S3 starts scripts/rgw.sh there (test/support/s3.ts), and the end of the run stops it.
// With CONTENTLIB_TEST_S3_ENDPOINT set, the tests use that store and nothing is started.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { RGW_DIR_ENV } from './s3.js';

export default function setup(): (() => void) | undefined {
  // Every project of the run (default, postgres-s3) runs this: the first one decides.
  if (process.env.CONTENTLIB_TEST_S3_ENDPOINT || process.env[RGW_DIR_ENV]) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'contentlib-rgw-'));
  process.env[RGW_DIR_ENV] = dir;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (existsSync(join(dir, 'cluster'))) {
      const result = spawnSync('bash', [join(ROOT, 'scripts', 'rgw.sh'), 'stop', join(dir, 'cluster')], {
        stdio: 'inherit',
      });
      if (result.status !== 0) console.error(`scripts/rgw.sh stop ${dir}/cluster failed`);
    }
    rmSync(dir, { recursive: true, force: true });
    delete process.env[RGW_DIR_ENV];
  };
  // A run that ends without its teardown (an error, Ctrl-C) must not leave the daemons behind.
  process.once('exit', stop);
  return stop;
}
