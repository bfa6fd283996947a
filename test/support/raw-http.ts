// A raw HTTP/1.1 client over a TCP socket: it sends exactly the bytes it is given (bad request
// lines, wrong lengths, odd headers) that a well-behaved client library refuses to produce.
import { connect } from 'node:net';
import type { Answer } from './http.js';

export interface RawAnswer extends Answer {
  /** The whole response as it came off the wire (latin1), for secret scans. */
  raw: string;
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return out;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** Parses what came back; status 0 when the server closed without answering. */
export function parseResponse(raw: string): RawAnswer {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = split < 0 ? '' : raw.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  const text = Buffer.from(body, 'latin1').toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status, headers, text, json, raw };
}

/** Sends `head` (request line and headers, CRLF-separated, without the blank line) and `body`; reads until the server closes. */
export function rawRequest(
  port: number,
  head: string,
  body: Buffer | string = '',
  o: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const timeoutMs = o.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms to: ${head.split('\r\n')[0]}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A reset after the answer (the server closing a rejected upload) is not a failure.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks).toString('latin1')));
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
    if (body.length > 0) socket.write(body);
    // Half-close: "that is all I will send", so a body shorter than its Content-Length ends here.
    if (o.halfClose) socket.end();
  });
}
