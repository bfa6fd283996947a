// The S3 presigned PUT, checked without trusting the SDK: the signature is recomputed here with
// node:crypto following AWS's published Signature Version 4 algorithm (query-string
// authentication), first on AWS's own documented example, then on our presigned URLs: proof, apart
// from any one store, that a PUT whose headers differ cannot match (storage-s3.test.ts sees RGW
// itself answer 403).
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bareEtag, sameEtag } from '../../src/server/storage/interface.js';
import { createS3Storage, parseS3Url } from '../../src/server/storage/s3.js';

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** RFC 3986 encoding as SigV4 wants it: only A–Z a–z 0–9 - _ . ~ stay as they are. */
const uriEncode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature SigV4 gives a presigned URL, computed from the URL, the headers sent and the secret. */
function sigv4Signature(method: string, url: URL, headers: Record<string, string>, secret: string): string {
  const q = url.searchParams;
  const signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
  const [, date, region, service] = (q.get('X-Amz-Credential') ?? '').split('/');
  const amzDate = q.get('X-Amz-Date') ?? '';
  // S3 does not normalise the path: each segment is encoded once, as it appears in the URL.
  const canonicalUri = url.pathname
    .split('/')
    .map((seg) => uriEncode(decodeURIComponent(seg)))
    .join('/');
  const canonicalQuery = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${(lower[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [
    method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(';'),
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date ?? ''), region ?? ''), service ?? ''), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('SigV4 recomputed independently', () => {
  it("reproduces AWS's documented presigned GET example (query-string authentication)", () => {
    // From AWS's "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
    const url = new URL(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host',
    );
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(sigv4Signature('GET', url, { host: 'examplebucket.s3.amazonaws.com' }, secret)).toBe(
      'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });
});

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
// The store signs at this fixed moment: on a slow machine more than half a second could pass
// between the test's expiresAt and the signing, and the lifetime would round to 3599.
const SIGNED_AT = new Date('2026-11-27T10:00:00.000Z');
const IN_AN_HOUR = new Date(SIGNED_AT.getTime() + 3600_000);
/** The S3 store the presigned PUTs come from: path-style on a custom endpoint, under `prefix`. */
const storageAt = (prefix: string) =>
  createS3Storage({
    location: { bucket: 'media', prefix },
    endpoint: 'http://127.0.0.1:9000',
    region: 'eu-west-3',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: SECRET },
    now: () => new Date(SIGNED_AT),
  });

describe('S3 presigned PUT', () => {
  const storage = storageAt('lib/one');
  const key = 'staging/4b1f/clip été (1).mp4';

  async function presigned() {
    return storage.presignPut({
      key,
      contentType: 'video/mp4',
      contentLength: 123456,
      expiresAt: IN_AN_HOUR,
    });
  }

  it('signs content-length, content-type and host, path-style on the custom endpoint', async () => {
    const { url, headers } = await presigned();
    const u = new URL(url);
    expect(u.origin).toBe('http://127.0.0.1:9000');
    expect(decodeURIComponent(u.pathname)).toBe(`/media/lib/one/${key}`);
    expect(u.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(['content-length', 'content-type', 'host']);
    expect(u.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(headers).toEqual({ 'Content-Type': 'video/mp4', 'Content-Length': '123456' });
  });

  it('without a declared SHA-256 carries no checksum and an unsigned payload', async () => {
    const u = new URL((await presigned()).url);
    const names = [...u.searchParams.keys()].map((k) => k.toLowerCase());
    expect(names.filter((n) => n.includes('checksum'))).toEqual([]);
    expect(u.searchParams.get('x-id')).toBe('PutObject');
  });

  it('has the signature SigV4 gives those headers, and another one for any other type or length', async () => {
    const { url, headers } = await presigned();
    const u = new URL(url);
    const sent = { ...headers, host: u.host };
    const given = u.searchParams.get('X-Amz-Signature');
    expect(sigv4Signature('PUT', u, sent, SECRET)).toBe(given);
    // What a store computes for a PUT whose headers differ: not the URL's signature, so 403.
    expect(sigv4Signature('PUT', u, { ...sent, 'content-type': 'text/html' }, SECRET)).not.toBe(given);
    expect(sigv4Signature('PUT', u, { ...sent, 'content-length': '123457' }, SECRET)).not.toBe(given);
    expect(sigv4Signature('PUT', u, sent, 'another-secret')).not.toBe(given);
  });
});

describe('S3 presigned PUT with a declared SHA-256', () => {
  const storage = storageAt('');
  const body = Buffer.from('the bytes of the file');
  const hex = createHash('sha256').update(body).digest('hex');
  const base64 = createHash('sha256').update(body).digest('base64');

  async function presigned() {
    return storage.presignPut({
      key: 'staging/4b1f',
      contentType: 'image/jpeg',
      contentLength: body.length,
      sha256: hex,
      expiresAt: IN_AN_HOUR,
    });
  }

  it('signs x-amz-checksum-sha256 as a header the PUT must carry (base64), not as a query parameter', async () => {
    const { url, headers } = await presigned();
    const u = new URL(url);
    expect(u.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual([
      'content-length',
      'content-type',
      'host',
      'x-amz-checksum-sha256',
    ]);
    expect([...u.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    expect(headers).toEqual({
      'Content-Type': 'image/jpeg',
      'Content-Length': String(body.length),
      'x-amz-checksum-sha256': base64,
    });
  });

  it('has the signature SigV4 gives that checksum, and another one for any other (or none)', async () => {
    const { url, headers } = await presigned();
    const u = new URL(url);
    const sent: Record<string, string> = { ...headers, host: u.host };
    const given = u.searchParams.get('X-Amz-Signature');
    expect(sigv4Signature('PUT', u, sent, SECRET)).toBe(given);
    // A client that declares other bytes' checksum, or drops the header, does not match: 403.
    const other = createHash('sha256').update('other bytes').digest('base64');
    expect(sigv4Signature('PUT', u, { ...sent, 'x-amz-checksum-sha256': other }, SECRET)).not.toBe(given);
    const { 'x-amz-checksum-sha256': _dropped, ...without } = sent;
    expect(sigv4Signature('PUT', u, without, SECRET)).not.toBe(given);
  });
});

describe('ETags, however a store writes them', () => {
  it.each([
    ['"abc"', 'abc', true], // RGW: HEAD quotes it, a copy's answer does not
    ['"abc-3"', '"abc-3"', true],
    ['W/"abc"', 'abc', true],
    ['"abc"', '"abd"', false],
    ['"abc-3"', 'abc', false], // a multipart ETag is not the MD5 of the same name
  ])('%s and %s are the same version: %s', (a, b, same) => {
    expect(sameEtag(a, b)).toBe(same);
    expect(bareEtag(a)).not.toContain('"');
  });
});

describe('s3:// URLs', () => {
  it('give a bucket and a prefix without slashes at either end', () => {
    expect(parseS3Url('s3://media')).toEqual({ bucket: 'media', prefix: '' });
    expect(parseS3Url('s3://media/')).toEqual({ bucket: 'media', prefix: '' });
    expect(parseS3Url('s3://media/teams/acme/')).toEqual({ bucket: 'media', prefix: 'teams/acme' });
  });

  it('refuse what is not one, saying why', () => {
    expect(parseS3Url('https://media/x')).toBeInstanceOf(Error);
    expect(String(parseS3Url('s3://Media_Bucket'))).toMatch(/not a valid bucket name/);
  });
});
