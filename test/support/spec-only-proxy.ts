// A Content Library Service with the specification's endpoints only: an HTTP proxy on 127.0.0.1
// in front of a real contentlib server that passes the spec's endpoints on unchanged and answers
// every other /api path as a service without contentlib's extensions would, with a bare 404.
// For the CLI's "this service does not offer …" paths; what it passes on is the real server's.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  close(): Promise<void>;
}

export async function startSpecOnlyProxy(upstream: string): Promise<SpecOnlyProxy> {
  const target = new URL(upstream);
  const refused: string[] = [];
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const spec = SPEC_ENDPOINTS.some(([method, pattern]) => method === req.method && pattern.test(path));
    if (spec || !path.startsWith('/api/')) return pass(req, res);
    refused.push(`${req.method} ${path}`);
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'not_found', message: 'Not Found' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
