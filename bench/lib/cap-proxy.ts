// A TCP proxy that caps each connection's upload at a fixed rate, the way one TCP stream over a
// long round trip is capped whatever the link (issue 28's bench): every connection gets the cap
// on its own, so N parallel connections move N times as much. It counts the bytes clients send
// through it (requests and bodies), for "how much did the re-run send". Answers pass uncapped.
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface CapProxy {
  url: string;
  /** Bytes received from clients since start or the last reset. */
  received(): number;
  resetCount(): void;
  close(): Promise<void>;
}

export async function startCapProxy(target: () => string, bytesPerSecond: number): Promise<CapProxy> {
  const sockets = new Set<Socket>();
  let received = 0;
  const server: Server = createServer((client) => {
    const { hostname, port } = new URL(target());
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    upstream.pipe(client);
    // When this connection may send its next byte: a running schedule, so timer granularity
    // does not lower the rate (a late timer is made up by the next chunk's shorter wait).
    let due = 0;
    client.on('data', (chunk: Buffer) => {
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
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    resetCount: () => {
      received = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
