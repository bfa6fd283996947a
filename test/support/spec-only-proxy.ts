// A service that keeps to the spec and knows none of our extensions, made from ours: an HTTP
// proxy on 127.0.0.1 in front of a real server that passes everything through, except that it
// answers POST /api/v1/upload/check with 404 not_found (no such endpoint) and refuses a presign
// carrying `sha256` as a strict spec service refuses an unknown field (400 invalid_request),
// each as chosen. It records the presign bodies it saw.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { listenLocal } from './listen.js';

export interface SpecOnlyProxy {
  url: string;
  /** The presign request bodies that reached the proxy, parsed. */
  presigns: Array<Record<string, unknown>>;
  /** Check requests answered 404. */
  checks(): number;
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startSpecOnlyProxy(
  upstream: string,
  o: { check: 'missing' | 'kept'; sha256: 'refused' | 'kept' },
): Promise<SpecOnlyProxy> {
  const target = new URL(upstream);
  const presigns: Array<Record<string, unknown>> = [];
  let checks = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/upload/check' && o.check === 'missing') {
      checks++;
      return answer(res, 404, { error: { code: 'not_found', message: 'no such endpoint', details: [] } });
    }
    if (req.method === 'POST' && path === '/api/v1/upload/presign') {
      const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      presigns.push(json);
      if ('sha256' in json && o.sha256 === 'refused')
        return answer(res, 400, {
          error: {
            code: 'invalid_request',
            message: 'the presign request is invalid: Unrecognized key: "sha256"',
            details: [{ path: '', message: 'Unrecognized key: "sha256"' }],
          },
        });
    }
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  return {
    ...(await listenLocal(server)),
    presigns,
    checks: () => checks,
  };
}
