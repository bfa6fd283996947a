// A setup file of the postgres-s3 project: waits for the run's S3 (started by the first file
// that gets here, test/support/s3.ts) before any hook runs, so a hook's 30 s is never spent on it.
import { testS3Endpoint } from './s3.js';

await testS3Endpoint();
