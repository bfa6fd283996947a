// A Content Library Service that keeps to the specification, made from ours: an HTTP proxy on
// 127.0.0.1 in front of a real contentlib server. Without options it passes the spec's endpoints
// on unchanged and answers every other /api path with a bare 404, as a service without
// contentlib's extensions would. With options it passes everything through except what is chosen:
// POST /api/v1/upload/check answered 404 not_found (no such endpoint), and a presign carrying
// `sha256` refused as a strict spec service refuses an unknown field (400 invalid_request), and
// the multipart endpoints answered 404 (`parts: 'missing'`).
// A presign's `multipart` (issue 28) is dropped on the way unless `multipart: 'kept'` (a lenient
// spec service ignores what it does not know, so its answer never offers parts), or refused as
// `sha256` is with `multipart: 'refused'`.
// A complete carrying `sha256` (an extension, issue 41) is refused the same way with
// `completeSha256: 'refused'`.
// It records the presign and complete bodies it saw and the requests it refused.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { requestUpstream } from './http-forward.js';
import { listenLocal } from './listen.js';

/** The endpoints of the service specification, as method and path pattern. */
const SPEC_ENDPOINTS: ReadonlyArray<[method: string, path: RegExp]> = [
  ['POST', /^\/api\/v1\/upload\/presign$/],
  ['POST', /^\/api\/v1\/upload\/complete$/],
  ['GET', /^\/api\/v1\/content$/],
  ['GET', /^\/api\/v1\/content\/[^/]+$/],
  ['PATCH', /^\/api\/v1\/content\/[^/]+$/],
  ['DELETE', /^\/api\/v1\/content\/[^/]+$/],
];

export interface SpecOnlyProxy {
  url: string;
  /** `METHOD /path` of each request answered 404 because it is no spec endpoint. */
  refused: string[];
  /** The presign request bodies that reached the proxy, parsed. */
  presigns: Array<Record<string, unknown>>;
  /** The complete request bodies that reached the proxy, parsed. */
  completes: Array<Record<string, unknown>>;
  /** Check requests answered 404. */
  checks(): number;
  close(): Promise<void>;
}

/** Without options every extension is refused; with them, only what they name. */
export interface SpecOnlyOptions {
  check: 'missing' | 'kept';
  sha256: 'refused' | 'kept';
  /** Default 'ignored': the field is removed before the request reaches the server. */
  multipart?: 'refused' | 'ignored' | 'kept';
  /** 'missing': POST /api/v1/upload/parts and /abort answered 404, whatever presign offered. */
  parts?: 'missing' | 'kept';
  /** 'refused': a complete carrying `sha256` is 400, as a strict service refuses an unknown field. Default 'kept'. */
  completeSha256?: 'refused' | 'kept';
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startSpecOnlyProxy(upstream: string, o?: SpecOnlyOptions): Promise<SpecOnlyProxy> {
  const presigns: Array<Record<string, unknown>> = [];
  const completes: Array<Record<string, unknown>> = [];
  const refused: string[] = [];
  let checks = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const path = (req.url ?? '/').split('?')[0]!;
    const isCheck = req.method === 'POST' && path === '/api/v1/upload/check';
    const spec = SPEC_ENDPOINTS.some(([method, pattern]) => method === req.method && pattern.test(path));
    if (o === undefined && !spec && path.startsWith('/api/')) {
      refused.push(`${req.method} ${path}`);
      if (isCheck) checks++;
      return answer(res, 404, { error: { code: 'not_found', message: 'Not Found' } });
    }
    const isParts = req.method === 'POST' && /^\/api\/v1\/upload\/(parts|abort)$/.test(path);
    if (isParts && o?.parts === 'missing') {
      refused.push(`${req.method} ${path}`);
      return answer(res, 404, { error: { code: 'not_found', message: 'no such endpoint', details: [] } });
    }
    if (isCheck && o?.check === 'missing') {
      checks++;
      refused.push(`${req.method} ${path}`);
      return answer(res, 404, { error: { code: 'not_found', message: 'no such endpoint', details: [] } });
    }
    if (req.method === 'POST' && path === '/api/v1/upload/complete') {
      const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      completes.push(json);
      if ('sha256' in json && o?.completeSha256 === 'refused')
        return answer(res, 400, {
          error: {
            code: 'invalid_request',
            message: 'the complete request is invalid: Unrecognized key: "sha256"',
            details: [{ path: '', message: 'Unrecognized key: "sha256"' }],
          },
        });
    }
    if (req.method === 'POST' && path === '/api/v1/upload/presign') {
      const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      presigns.push({ ...json });
      if ('sha256' in json && o?.sha256 === 'refused')
        return answer(res, 400, {
          error: {
            code: 'invalid_request',
            message: 'the presign request is invalid: Unrecognized key: "sha256"',
            details: [{ path: '', message: 'Unrecognized key: "sha256"' }],
          },
        });
      const multipart = o?.multipart ?? 'ignored';
      if ('multipart' in json && multipart === 'refused')
        return answer(res, 400, {
          error: {
            code: 'invalid_request',
            message: 'the presign request is invalid: Unrecognized key: "multipart"',
            details: [{ path: '', message: 'Unrecognized key: "multipart"' }],
          },
        });
      if ('multipart' in json && multipart === 'ignored') {
        delete json.multipart;
        return forward(req, res, Buffer.from(JSON.stringify(json)));
      }
    }
    forward(req, res, body);
  };
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const { 'transfer-encoding': _, ...rest } = req.headers;
    const headers = { ...rest, 'content-length': String(body.length) };
    const out = requestUpstream(req, upstream, headers);
    out.on('response', (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  return {
    ...(await listenLocal(server)),
    refused,
    presigns,
    completes,
    checks: () => checks,
  };
}
