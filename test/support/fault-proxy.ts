// An HTTP proxy on 127.0.0.1 between the CLI and a real `contentlib serve` that loses answers:
// the request reaches the server and is carried out in full, then the proxy cuts the connection
// instead of passing the answer on — what a flaky network does to a client. `decide` says, per
// request, whether its answer is lost. The Host header is passed on unchanged, so the presigned
// URLs the server hands out point at the proxy and the PUTs go through it too.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { requestUpstream } from './http-forward.js';
import { listenLocal } from './listen.js';

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The request body, parsed, for JSON API requests (complete's key is in it). */
  json?: unknown;
}

export interface FaultProxy {
  url: string;
  /** Requests seen and answers lost, per "METHOD /path-without-query". */
  stats: { seen: Map<string, number>; lost: Map<string, number> };
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, decide: (req: ProxiedRequest) => boolean): Promise<FaultProxy> {
  const stats = { seen: new Map<string, number>(), lost: new Map<string, number>() };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const path = req.url ?? '/';
    const route = `${req.method} ${path.split('?')[0]!.replace(/^\/storage\/.*/, '/storage/…')}`;
    bump(stats.seen, route);
    let json: unknown;
    if (String(req.headers['content-type']).startsWith('application/json')) json = JSON.parse(body.toString('utf8'));
    const lose = decide({ method: req.method ?? 'GET', path, json });
    const upstreamRes = await new Promise<IncomingMessage>((resolve, reject) => {
      const out = requestUpstream(req, upstream);
      out.on('response', resolve);
      out.on('error', reject);
      out.end(body);
    });
    const answer: Buffer[] = [];
    for await (const c of upstreamRes) answer.push(c as Buffer);
    if (lose) {
      bump(stats.lost, route);
      req.socket.destroy();
      return;
    }
    res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
    res.end(Buffer.concat(answer));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  return { ...(await listenLocal(server)), stats };
}
