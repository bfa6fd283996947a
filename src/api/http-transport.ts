// The API's JSON calls over Node's own node:http (node:https loaded only for an https base URL):
// one small request body, one small answer read whole; and the downloads' GETs of signed URLs
// (open: the body is the caller's to stream, src/download/fetch.ts), which over undici cost ~40 MB
// more peak memory and more CPU per GiB (bench/notes.md, issue 41). undici stays for the storage
// PUTs (./undici.ts), loaded when one happens: loading it cost a remote `ls` ~25 ms of CPU,
// more than the rest of the request (bench/notes.md, issue 33). Failures are Node's socket
// errors (ECONNREFUSED, ENOTFOUND, ECONNRESET, TLS codes…) as undici passed them on, so
// errors.ts describes them the same way; a timeout is an ETIMEDOUT error, which it reads as one.
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** One answer, its body read whole. */
export interface JsonAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface SendOptions {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** No answer headers, or no byte of the body, for this long: an ETIMEDOUT error. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface OpenOptions {
  url: string;
  headers: Record<string, string>;
  /** No answer headers for this long: an ETIMEDOUT error. The body's stalls are the caller's to time. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** An answer whose body is still to be read: read it to its end, or destroy it. */
export interface OpenAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/** As undici's `connect.timeout` was: a connection not made in this long is a timeout too. */
const CONNECT_TIMEOUT_MS = 10_000;
/** An idle kept-alive connection is closed after this long (undici's keepAliveTimeout was 10 s). */
const IDLE_MS = 10_000;

type RequestFn = typeof http.request;

/** Keep-alive connection pools of one run, one per scheme, created on first use. */
export interface HttpPool {
  send(o: SendOptions): Promise<JsonAnswer>;
  /**
   * A GET whose answer's body is streamed by the caller. The signal destroys the body too, but
   * no timer watches it: whoever reads it knows when it is waiting for bytes (fetch.ts does not
   * count the time its disk writes hold the body back).
   */
  open(o: OpenOptions): Promise<OpenAnswer>;
  /** Closes the idle connections (an open one ends with its request). */
  close(): void;
}

function timedOut(what: string, ms: number): Error {
  return Object.assign(new Error(`${what} within ${ms} ms`), { code: 'ETIMEDOUT' });
}

/** A connection closed before the answer's body ended, without an error event of its own. */
export function endedEarly(): Error {
  return Object.assign(new Error('the answer ended early'), { code: 'ECONNRESET' });
}

/**
 * Fails the request when a new connection is not made within CONNECT_TIMEOUT_MS (a reused one
 * is already connected); returns what clears the timer.
 */
function limitConnect(req: http.ClientRequest, fail: (err: unknown) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  req.on('socket', (socket) => {
    if (!socket.connecting) return;
    timer = setTimeout(() => fail(timedOut('not connected', CONNECT_TIMEOUT_MS)), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => clearTimeout(timer));
  });
  return () => clearTimeout(timer);
}

export function createHttpPool(): HttpPool {
  // 16 connections per host, as the undici Agent had; idle ones are unref'd by Node, so they do
  // not keep the process alive. An idle one is closed after the server's Keep-Alive timeout, or
  // after 10 s where the server gives none (undici's keepAliveTimeout): `timeout` is the idle
  // sockets' (a socket in use times out by send's own timers, not this).
  let plain: { request: RequestFn; agent: http.Agent } | undefined;
  let secure: Promise<{ request: RequestFn; agent: http.Agent }> | undefined;

  function via(protocol: string): Promise<{ request: RequestFn; agent: http.Agent }> {
    if (protocol === 'https:') {
      // node:https loads tls and crypto: only a command against an https service pays for it.
      secure ??= import('node:https').then(({ default: https }) => ({
        request: https.request,
        agent: new https.Agent({ keepAlive: true, maxSockets: 16, timeout: IDLE_MS }),
      }));
      return secure;
    }
    if (protocol !== 'http:')
      return Promise.reject(new TypeError(`unsupported URL protocol ${protocol}; use http or https`));
    plain ??= { request: http.request, agent: new http.Agent({ keepAlive: true, maxSockets: 16, timeout: IDLE_MS }) };
    return Promise.resolve(plain);
  }

  async function send(o: SendOptions): Promise<JsonAnswer> {
    const target = new URL(o.url);
    const { request, agent } = await via(target.protocol);
    return new Promise<JsonAnswer>((resolve, reject) => {
      const signal = o.signal;
      // undici rejected with the signal's reason; the callers (errors.ts, retry.ts) expect that.
      if (signal?.aborted) return reject(signal.reason);
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        connected();
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (err: unknown) => {
        if (done) return;
        finish();
        req.destroy();
        reject(err);
      };
      const onAbort = () => fail(signal!.reason);
      const arm = (what: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(timedOut(what, o.timeoutMs)), o.timeoutMs);
      };
      const headers: Record<string, string> = { ...o.headers };
      if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
      const req = request(target, { method: o.method, headers, agent });
      const connected = limitConnect(req, fail);
      arm('no answer headers');
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      req.on('response', (res) => {
        arm('the body stalled');
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          arm('the body stalled');
        });
        res.on('error', fail);
        res.on('end', () => {
          if (done) return;
          finish();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('close', () => {
          if (!res.complete) fail(endedEarly());
        });
      });
      req.end(o.body);
    });
  }

  async function open(o: OpenOptions): Promise<OpenAnswer> {
    const target = new URL(o.url);
    const { request, agent } = await via(target.protocol);
    return new Promise<OpenAnswer>((resolve, reject) => {
      const signal = o.signal;
      if (signal?.aborted) return reject(signal.reason);
      let answered = false;
      const settle = () => {
        clearTimeout(timer);
        connected();
      };
      // Before the answer, a failure rejects; after it, it reaches the body (the caller's reads).
      const fail = (err: unknown) => {
        settle();
        if (!answered) {
          answered = true;
          reject(err);
        }
        req.destroy(err as Error);
      };
      const onAbort = () => fail(signal!.reason);
      const req = request(target, { method: 'GET', headers: o.headers, agent });
      const connected = limitConnect(req, fail);
      const timer = setTimeout(() => fail(timedOut('no answer headers', o.timeoutMs)), o.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      req.on('response', (res) => {
        settle();
        answered = true;
        // A connection closed before the body's end: Node says 'aborted' (ECONNRESET) on the body.
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      req.end();
    });
  }

  return {
    send,
    open,
    close: () => {
      plain?.agent.destroy();
      void secure?.then((s) => s.agent.destroy());
    },
  };
}
