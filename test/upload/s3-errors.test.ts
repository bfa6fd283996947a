// The CLI against an S3-compatible store's refusals of a presigned PUT: XML error documents
// shaped like real S3 answers (Code, Message, RequestId, HostId), served by a bare node:http
// server that stands in for the third-party store. A signature mismatch is final and said in
// words; "Request has expired" presigns again; RequestTimeout, IncompleteBody, SlowDown and 5xx
// are retried; EntityTooLarge is final.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError, classifyForRetry, errorFromResponse } from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { describeRefusal } from '../../src/api/storage-refusal.js';
import { messageOf } from '../../src/upload/send/failure.js';
import { presignAndPut } from '../../src/upload/send/put.js';

function s3Error(code: string, message: string, extra = ''): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message}</Message>${extra}` +
    '<RequestId>4442587FB7D0A2F9</RequestId><HostId>nhz9Kb0Jk3ZgJ8OqK1Fh7a0lLq1rC1c=</HostId></Error>'
  );
}

const ANSWERS = {
  signature: [
    403,
    s3Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      '<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256</StringToSign>',
    ),
  ],
  expired: [
    403,
    s3Error(
      'AccessDenied',
      'Request has expired',
      '<X-Amz-Expires>3600</X-Amz-Expires><Expires>2026-01-01T01:00:00Z</Expires><ServerTime>2026-01-01T02:00:00Z</ServerTime>',
    ),
  ],
  tooLarge: [
    400,
    s3Error(
      'EntityTooLarge',
      'Your proposed upload exceeds the maximum allowed size',
      '<ProposedSize>6000000000</ProposedSize><MaxSizeAllowed>5368709120</MaxSizeAllowed>',
    ),
  ],
  timeout: [
    400,
    s3Error(
      'RequestTimeout',
      'Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.',
    ),
  ],
  incomplete: [
    400,
    s3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header'),
  ],
  slowDown: [503, s3Error('SlowDown', 'Please reduce your request rate.')],
  internal: [500, s3Error('InternalError', 'We encountered an internal error. Please try again.')],
} as const satisfies Record<string, readonly [number, string]>;

type Answer = keyof typeof ANSWERS;

let dir: string;
let server: Server;
let base: string;
let script: Answer[];
let puts: number;
const dispatcher = new Agent();
afterAll(() => dispatcher.close());

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-s3err-'));
  script = [];
  puts = 0;
  server = createServer((req, res) => {
    puts++;
    req.resume();
    req.on('end', () => {
      const next = script.shift();
      if (!next) return res.writeHead(200, { ETag: '"abc"' }).end();
      const [status, body] = ANSWERS[next];
      res.writeHead(status, { 'content-type': 'application/xml' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

async function send(answers: Answer[]) {
  script = [...answers];
  const path = join(dir, 'a.jpg');
  await writeFile(path, Buffer.alloc(100, 7));
  const st = await stat(path);
  let presigns = 0;
  const retries: string[] = [];
  const run = presignAndPut({ path, size: st.size, mtimeMs: st.mtimeMs }, 'image/jpeg', {
    dispatcher,
    now: () => new Date(),
    sleep: async () => {},
    policy: NO_WAIT_RETRY,
    presign: async () => {
      presigns++;
      return {
        presignedUrl: `${base}/bucket/staging/f${presigns}?X-Amz-Expires=3600&X-Amz-Signature=ab`,
        key: `u/f${presigns}/a.jpg`,
        fileId: `f${presigns}`,
        type: 'carousel' as const,
        expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      };
    },
    onRetry: (i) => retries.push(i.reason),
  });
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, presigns, retries, puts };
}

describe('S3 XML refusals of a presigned PUT', () => {
  it('are parsed into the store code and message', () => {
    const [status, body] = ANSWERS.signature;
    const err = errorFromResponse(status, {}, body, 'PUT', `${base}/bucket/k`);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(err.message).toMatch(/^The request signature we calculated/);
  });

  it('SignatureDoesNotMatch: one PUT, no retry loop, and says the headers did not match what was signed', async () => {
    const r = await send(['signature']);
    expect(r.puts).toBe(1);
    expect(r.presigns).toBe(1);
    expect(r.retries).toEqual([]);
    const message = messageOf(r.error);
    expect(message).toMatch(/403 SignatureDoesNotMatch/);
    expect(message).toMatch(/headers did not match what was signed/);
    expect(message).toMatch(/not retried/);
  });

  it('AccessDenied "Request has expired": presigns again and succeeds', async () => {
    const r = await send(['expired']);
    expect(r.error).toBeUndefined();
    expect(r.presigns).toBe(2);
    expect(r.retries).toEqual(['the upload URL expired; presigning again']);
  });

  it('RequestTimeout, IncompleteBody, SlowDown and InternalError are sent again, quoting the store', async () => {
    const r = await send(['timeout', 'incomplete', 'slowDown', 'internal']);
    expect(r.error).toBeUndefined();
    expect(r.puts).toBe(5);
    expect(r.retries[0]).toMatch(/RequestTimeout.*timed out waiting for the body/);
    expect(r.retries[1]).toMatch(/IncompleteBody/);
    expect(r.retries[2]).toMatch(/503 SlowDown.*slow down/);
    expect(r.retries[3]).toMatch(/500 InternalError/);
  });

  it('EntityTooLarge is final and says so', async () => {
    const r = await send(['tooLarge']);
    expect(r.puts).toBe(1);
    expect(classifyForRetry(r.error)).toEqual({ retry: false });
    expect(describeRefusal(r.error as StorageError)).toMatch(
      /exceeds the maximum allowed size \(400 EntityTooLarge\) — the file is larger than the store accepts/,
    );
  });
});
