// A slow link for end-to-end tests: a TCP proxy on 127.0.0.1 that forwards to a real server and
// lets the client's bytes through at a fixed rate (the answers come back at full speed). Signed
// URLs name the server's public URL, so a server behind it is started with `--public-url` set to
// the proxy's URL; the target is therefore read when a connection arrives, not when it starts.
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface ThrottleProxy {
  url: string;
  /** Bytes the clients have sent through it (requests and bodies) since it started or was last reset. */
  received(): number;
  /** Most client connections open at once among those made since start or the last reset. */
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
  // Connections of the current count (made since the last reset) open now, and the most at once.
  let generation = 0;
  let open = 0;
  let peak = 0;
  const server: Server = createServer((client) => {
    const { hostname, port } = new URL(typeof target === 'string' ? target : target());
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    const mine = generation;
    peak = Math.max(peak, ++open);
    client.once('close', () => {
      if (mine === generation) open--;
    });
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      // Hold the client back for as long as this chunk takes on the slow link.
      client.pause();
      received += chunk.length;
      upstream.write(chunk);
      setTimeout(() => client.resume(), (chunk.length / bytesPerSecond) * 1000);
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
      open = 0;
      peak = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
