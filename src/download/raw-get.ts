// A GET over plain HTTP/1.1 whose body is read straight off the socket into one reused buffer
// (net.Socket's `onread`), for a large download's part file (fetch.ts).
//
// Why not node:http: every socket read there is a fresh 64 KiB buffer, freed only when a
// collection finds it dead, so a 1 GiB download allocates 16,000 of them: the allocations, the
// page faults of fresh memory, the scavenges that keep them bounded (../heap/scavenge.ts) and the
// GC threads' frees cost ~0.45 s of CPU per GiB, a third of the download's, as much as the kernel's
// share of receiving and writing the bytes. Read into one buffer, written and hashed from it
// before the next read, a bare GET took 0.94–0.97 s of CPU per GiB against node:http's 1.43 s,
// and 52–58 MB against 76 MB (bench/notes.md, issue 41).
//
// Only what a signed URL's GET answers when all goes well is read here: 200 (or 206 for a
// resumed file) with a Content-Length and no Transfer-Encoding. Anything else — an error status,
// a range other than the one asked for, a chunked or malformed answer — is declined: the
// connection is closed and the caller asks again over node:http, whose answer it already knows
// how to read, report and retry. TLS sockets take no `onread`, so https: URLs never come here.
import net from 'node:net';

export interface RawGetOptions {
  /** An http: URL. */
  url: URL;
  /** Request headers beyond Host and Connection (Range, for a resumed file). */
  headers: Record<string, string>;
  /** No answer head, or no body byte while one is awaited, for this long: an ETIMEDOUT error. */
  timeoutMs: number;
  signal: AbortSignal;
  /** Whether to read this answer's body (a 2xx with a Content-Length); false declines it. */
  accept(status: number, headers: ReadonlyMap<string, string>): boolean;
  /**
   * Each piece of the body, in order: a view of the reused buffer, valid only during the call.
   * A promise holds the socket (paused, not timed as a stall) until it settles; a throw or a
   * rejection fails the GET.
   */
  body(view: Buffer): Promise<void> | undefined;
}

/** 'declined': the answer was not one to read here, and nothing of its body was taken. */
export type RawOutcome = 'done' | 'declined';

/** As node:http's pools (http-transport.ts): a connection not made in this long is a timeout. */
const CONNECT_TIMEOUT_MS = 10_000;
/** One socket read: Node's own read size. */
const READ_BYTES = 64 * 1024;
/** An answer head larger than this is not a signed URL's answer: declined. */
const MAX_HEAD = 64 * 1024;

function timedOut(what: string, ms: number): Error {
  return Object.assign(new Error(`${what} within ${ms} ms`), { code: 'ETIMEDOUT' });
}

function endedEarly(): Error {
  return Object.assign(new Error('the answer ended early'), { code: 'ECONNRESET' });
}

interface Head {
  status: number;
  headers: Map<string, string>;
}

/** The status and headers of an HTTP/1.x answer head (without its final blank line), or undefined. */
export function parseHead(text: string): Head | undefined {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
  if (!m) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    // No folded lines, no empty names, no spaces before the colon (RFC 9112 §5.1).
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon))) return undefined;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    const earlier = headers.get(name);
    // Two different lengths: which one frames the body is anyone's guess.
    if (name === 'content-length' && earlier !== undefined && earlier !== value) return undefined;
    headers.set(name, earlier === undefined || name === 'content-length' ? value : `${earlier}, ${value}`);
  }
  return { status: Number(m[1]), headers };
}

/** The body's length when the head frames it by Content-Length alone, else undefined. */
function bodyLength(headers: ReadonlyMap<string, string>): number | undefined {
  if (headers.has('transfer-encoding')) return undefined;
  const value = headers.get('content-length');
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** One GET of `o.url` (http: only); resolves once the whole body went through `o.body`, or declined. */
export function rawGet(o: RawGetOptions): Promise<RawOutcome> {
  return new Promise<RawOutcome>((resolve, reject) => {
    if (o.signal.aborted) return reject(o.signal.reason);
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let head: Buffer | undefined = Buffer.alloc(0);
    let left = 0;
    let held = false;
    /** The whole body was handed on (its last write may still be in flight). */
    let complete = false;
    let settled = false;
    const end = (err: unknown, outcome?: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err !== undefined) reject(err);
      else resolve(outcome!);
    };
    const onAbort = () => end(o.signal.reason);
    let timer = setTimeout(() => end(timedOut('not connected', CONNECT_TIMEOUT_MS)), CONNECT_TIMEOUT_MS);
    const stallTimer = (what: string) => {
      clearTimeout(timer);
      timer = setTimeout(function stalled() {
        if (held) return void timer.refresh();
        end(timedOut(what, o.timeoutMs));
      }, o.timeoutMs);
    };

    /** Hands one piece of body on; false pauses the socket until its write settles. */
    const take = (view: Buffer): boolean => {
      if (view.length === 0) return true;
      const piece = left < view.length ? view.subarray(0, left) : view;
      left -= piece.length;
      let wrote: Promise<void> | undefined;
      try {
        wrote = o.body(piece);
      } catch (err) {
        end(err);
        return false;
      }
      if (left === 0) {
        // The last piece: done once it is written.
        complete = true;
        if (!wrote) end(undefined, 'done');
        else
          wrote.then(
            () => end(undefined, 'done'),
            (err: unknown) => end(err),
          );
        return false;
      }
      if (!wrote) return true;
      held = true;
      wrote.then(
        () => {
          held = false;
          timer.refresh();
          if (!settled) socket.resume();
        },
        (err: unknown) => end(err),
      );
      return false;
    };

    const onHead = (view: Buffer): boolean => {
      head = Buffer.concat([head!, view]);
      const at = head.indexOf('\r\n\r\n');
      if (at < 0) {
        if (head.length > MAX_HEAD) end(undefined, 'declined');
        return true;
      }
      const parsed = parseHead(head.toString('latin1', 0, at));
      const length = parsed ? bodyLength(parsed.headers) : undefined;
      if (!parsed || length === undefined || !o.accept(parsed.status, parsed.headers)) {
        end(undefined, 'declined');
        return false;
      }
      const rest = head.subarray(at + 4);
      head = undefined;
      left = length;
      stallTimer('the body stalled');
      if (left === 0) {
        complete = true;
        end(undefined, 'done');
        return false;
      }
      return take(rest);
    };

    const host = o.url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = net.connect({
      host,
      port: Number(o.url.port || 80),
      onread: {
        buffer,
        callback: (n: number, buf: Uint8Array): boolean => {
          if (settled) return false;
          timer.refresh();
          const view = Buffer.from(buf.buffer, buf.byteOffset, n);
          return head ? onHead(view) : take(view);
        },
      },
    });
    socket.on('connect', () => {
      stallTimer('no answer headers');
      const lines = [`GET ${o.url.pathname}${o.url.search} HTTP/1.1`, `Host: ${o.url.host}`];
      for (const [name, value] of Object.entries(o.headers)) lines.push(`${name}: ${value}`);
      lines.push('Connection: close', '', '');
      socket.write(lines.join('\r\n'));
    });
    socket.on('error', (err) => end(err));
    // Closed with body still to come (or no head at all): the caller resumes from what it has
    // (waiting first for a write in flight, as after any failure).
    socket.on('close', () => {
      if (!complete) end(endedEarly());
    });
    o.signal.addEventListener('abort', onAbort, { once: true });
  });
}
