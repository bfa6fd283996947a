// The forwarding the test proxies share: one request passed to the server at `upstream` with its
// body through a Transform the proxy chooses (the fault it injects), the answer passed back as
// it comes. The body goes on while the answer comes back: a server may answer before reading it.
// Proxies that change what passes build on the request to the server alone (requestUpstream).
import {
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  request,
} from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * `req` again, to the server at `upstream`: its method, path and headers as they came (Host
 * included, so a signature made for the proxy's address still holds), or the `headers` given.
 */
export function requestUpstream(
  req: IncomingMessage,
  upstream: string,
  headers: OutgoingHttpHeaders = req.headers,
): ClientRequest {
  const target = new URL(upstream);
  return request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers });
}

/** A body passed on unchanged. */
export const passThrough = (): Transform => new Transform({ transform: (chunk, _enc, cb) => cb(null, chunk) });

/** Forwards `req`; `bodyOf` gets the request to the server (a fault may cut it) and returns the body's path. */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: string,
  bodyOf: (out: ClientRequest) => Transform = passThrough,
): Promise<void> {
  const out = requestUpstream(req, upstream);
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    out.on('response', resolve);
    out.on('error', reject);
    out.on('close', () => reject(new Error('the connection to the server closed without an answer')));
  });
  const sent = pipeline(req, bodyOf(out), out);
  // Awaited once answered; a body cut on purpose fails `answered` first, and only that is reported.
  sent.catch(() => undefined);
  const answer = await answered;
  res.writeHead(answer.statusCode ?? 502, answer.headers);
  await pipeline(answer, res);
  await sent;
}
