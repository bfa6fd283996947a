// A slow link for the tests and the multipart bench: a TCP proxy on 127.0.0.1 that forwards to a
// real server and lets each connection's client bytes through at a fixed rate (the answers come
// back at full speed). It counts what the clients sent, for "how much did the re-run send". Signed
// URLs name the server's public URL, so a server behind it is started with `--public-url` set to
// the proxy's URL; the target is therefore read when a connection arrives, not when it starts.
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface ThrottleProxy {
  url: string;
  /** Bytes the clients have sent through it (requests and bodies) since it started or was last reset. */
  received(): number;
  /**
   * Most requests in flight at once (on a connection, from its client's first byte of a request to
   * the first byte of the answer) among those started since start or the last reset. Idle kept-alive
   * connections are not counted: a pool that closes one and opens another has briefly two open as
   * the proxy sees them, but never more requests at once than it allows.
   */
  peakConnections(): number;
  resetCount(): void;
  close(): Promise<void>;
}

export async function startThrottleProxy(
  target: string | (() => string),
  bytesPerSecond: number,
): Promise<ThrottleProxy> {
  const sockets = new Set<Socket>();
  let received = 0;
  // Requests of the current count (started since the last reset) in flight now, and the most at once.
  let generation = 0;
  let inFlight = 0;
  let peak = 0;
  const server: Server = createServer((client) => {
    const { hostname, port } = new URL(typeof target === 'string' ? target : target());
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    // HTTP/1.1 without pipelining: a request is in flight from its first byte until the answer
    // starts. `busy` is the count it was started in (a reset meanwhile starts a new count), or null.
    let busy: number | null = null;
    const idle = () => {
      if (busy === generation) inFlight--;
      busy = null;
    };
    client.once('close', idle);
    upstream.on('data', idle);
    upstream.pipe(client);
    // When this connection may send its next byte: a running schedule, so timer granularity
    // does not lower the rate (a late timer is made up by the next chunk's shorter wait). Each
    // connection is paced on its own, as one TCP stream over a long round trip is capped
    // whatever the link: N parallel connections move N times as much (bench/multipart.ts).
    let due = 0;
    client.on('data', (chunk: Buffer) => {
      if (busy === null) {
        busy = generation;
        peak = Math.max(peak, ++inFlight);
      }
      received += chunk.length;
      upstream.write(chunk);
      const now = performance.now();
      due = Math.max(due, now) + (chunk.length / bytesPerSecond) * 1000;
      if (due - now > 1) {
        client.pause();
        setTimeout(() => client.resume(), due - now);
      }
    });
    client.on('end', () => upstream.end());
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    received: () => received,
    peakConnections: () => peak,
    resetCount: () => {
      received = 0;
      generation++;
      inFlight = 0;
      peak = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
