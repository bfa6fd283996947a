// Three `contentlib serve --storage s3://…` processes on one PostgreSQL and one S3 (RGW) bucket
// (the suite is test/support/multi-instance.ts). The instances reach the bucket through a
// proxy that passes everything on and counts requests, so "each object deleted once" is
// checked on the DELETE requests the store received, not only on what is left.
import { startFaultProxy } from '../support/fault-proxy.js';
import { multiInstanceSuite } from '../support/multi-instance.js';
import { startS3 } from '../support/s3.js';

const BUCKET = 'media';
const PREFIX = 'lib';

multiInstanceSuite('one S3 bucket', async () => {
  const s3 = await startS3();
  const bucket = await s3.createBucket(BUCKET);
  const proxy = await startFaultProxy(s3.endpoint, () => false);
  const keys = async () => s3.listKeys(BUCKET, `${PREFIX}/`);
  return {
    args: ['--storage', `s3://${bucket}/${PREFIX}`],
    env: { ...s3.env, AWS_ENDPOINT_URL_S3: proxy.url },
    async objects() {
      const all = await keys();
      const staging = all.filter((k) => k.startsWith(`${PREFIX}/staging/`)).length;
      return { final: all.length - staging, staging };
    },
    // Straight to the store: no byte of a PUT passes through an instance.
    putOrigin: () => `${proxy.url}/${bucket}/${PREFIX}/`,
    deletes(objectKey) {
      let n = 0;
      for (const [route, count] of proxy.stats.seen) {
        const [method, path] = route.split(' ', 2) as [string, string];
        if (method === 'DELETE' && decodeURIComponent(path) === `/${bucket}/${PREFIX}/${objectKey}`) n += count;
      }
      return n;
    },
    async stop() {
      await proxy.close();
      await s3.stop();
    },
  };
});
