// A plain TCP proxy on 127.0.0.1 that counts the bytes each way: in front of `serve` it proves
// how much of an upload passed through the server; with several targets it is a round-robin
// load balancer (one target per connection, as a layer-4 balancer does). Targets are read when
// a connection arrives, so a restarted target's new address can be swapped in.
import { type AddressInfo, type Server, type Socket, createConnection, createServer } from 'node:net';

export interface TcpProxy {
  url: string;
  /** Bytes clients sent through the proxy (requests, bodies included). */
  bytesIn(): number;
  /** Bytes the targets answered. */
  bytesOut(): number;
  /** Connections accepted, per target URL. */
  connections(): Map<string, number>;
  close(): Promise<void>;
}

export async function startTcpProxy(targets: string[] | (() => string[])): Promise<TcpProxy> {
  const list = typeof targets === 'function' ? targets : () => targets;
  const sockets = new Set<Socket>();
  const perTarget = new Map<string, number>();
  let bytesIn = 0;
  let bytesOut = 0;
  let next = 0;
  const server: Server = createServer((client) => {
    const all = list();
    const target = all[next++ % all.length]!;
    perTarget.set(target, (perTarget.get(target) ?? 0) + 1);
    const { hostname, port } = new URL(target);
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      // A reset on one side ends the other; the peer sees a dropped connection, as through a real balancer.
      s.on('error', () => (s === client ? upstream : client).destroy());
    }
    client.on('data', (c: Buffer) => (bytesIn += c.length));
    upstream.on('data', (c: Buffer) => (bytesOut += c.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesIn: () => bytesIn,
    bytesOut: () => bytesOut,
    connections: () => perTarget,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
