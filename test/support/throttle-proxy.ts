// A slow link for end-to-end tests: a TCP proxy on 127.0.0.1 that forwards to a real server and
// lets the client's bytes through at a fixed rate (the answers come back at full speed). Signed
// URLs name the host the client reached, so uploads through it stay on the slow link.
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface ThrottleProxy {
  url: string;
  close(): Promise<void>;
}

export async function startThrottleProxy(target: string, bytesPerSecond: number): Promise<ThrottleProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      // Hold the client back for as long as this chunk takes on the slow link.
      client.pause();
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
