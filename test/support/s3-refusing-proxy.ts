// An HTTP proxy on 127.0.0.1 in front of an S3 endpoint (RGW) that answers every presigned
// PUT itself, as AWS S3 answers one whose signature does not match: 403 with AWS's XML
// `SignatureDoesNotMatch` document (its exact shape: Code, Message, AWSAccessKeyId,
// StringToSign, SignatureProvided, the bytes, CanonicalRequest, RequestId, HostId). RGW refuses
// such a PUT itself (test/server/storage-s3.test.ts), but with a document of its own: this is
// what RGW cannot give, AWS's words, and AWS is third-party, so the test may answer for it.
// Every other request (serve's HEADs, GETs, the bucket check) is passed on unchanged.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { forward } from './http-forward.js';
import { listenLocal } from './listen.js';

export interface RefusingProxy {
  url: string;
  /** Presigned PUTs that reached the proxy (each answered 403), in order. */
  puts: string[];
  close(): Promise<void>;
}

const hexBytes = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => b.toString(16).padStart(2, '0')).join(' ');
const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The body AWS S3 sends with a 403 SignatureDoesNotMatch for a SigV4 presigned request. */
export function signatureDoesNotMatch(method: string, url: URL): string {
  const q = url.searchParams;
  const date = q.get('X-Amz-Date') ?? '';
  const scope = (q.get('X-Amz-Credential') ?? '').split('/').slice(1).join('/');
  const stringToSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${'0'.repeat(64)}`;
  const canonicalRequest = `${method}\n${url.pathname}\n${url.search.slice(1)}\nhost:${url.host}\n\nhost\nUNSIGNED-PAYLOAD`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Error><Code>SignatureDoesNotMatch</Code>' +
    '<Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message>' +
    `<AWSAccessKeyId>${xmlText((q.get('X-Amz-Credential') ?? '').split('/')[0] ?? '')}</AWSAccessKeyId>` +
    `<StringToSign>${xmlText(stringToSign)}</StringToSign>` +
    `<SignatureProvided>${xmlText(q.get('X-Amz-Signature') ?? '')}</SignatureProvided>` +
    `<StringToSignBytes>${hexBytes(stringToSign)}</StringToSignBytes>` +
    `<CanonicalRequest>${xmlText(canonicalRequest)}</CanonicalRequest>` +
    `<CanonicalRequestBytes>${hexBytes(canonicalRequest)}</CanonicalRequestBytes>` +
    '<RequestId>4442587FB7D0A2F9</RequestId>' +
    '<HostId>nhz9Kb0Jk3ZgJ8OqK1Fh7a0lLq1rC1cPBXJdmK4mZq4bL1pbKXZ1cL8QoQ0b9s3pX9Yz1e0d4Q=</HostId></Error>'
  );
}

export async function startRefusingProxy(upstream: string): Promise<RefusingProxy> {
  const target = new URL(upstream);
  const puts: string[] = [];

  const refuse = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    // The whole body is read first, so the client sees the answer rather than a reset.
    for await (const chunk of req) void chunk;
    puts.push(url.pathname);
    const body = signatureDoesNotMatch('PUT', url);
    res.writeHead(403, {
      'content-type': 'application/xml',
      'content-length': Buffer.byteLength(body),
      'x-amz-request-id': '4442587FB7D0A2F9',
      server: 'AmazonS3',
    });
    res.end(body);
  };

  const pass = (req: IncomingMessage, res: ServerResponse) => {
    forward(req, res, upstream).catch(() => res.destroy());
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? target.host}`);
    if (req.method === 'PUT' && url.searchParams.has('X-Amz-Signature'))
      refuse(req, res, url).catch(() => res.destroy());
    else pass(req, res);
  });
  return { ...(await listenLocal(server)), puts };
}
