// A TCP proxy on 127.0.0.1 that breaks transfers part-way, as a flaky network does: the first
// `cuts` connections whose answers pass `cutAfter` bytes are reset right there, mid-body. API
// answers are small and pass untouched; a file's body is cut. It counts what the target sent,
// so a test can tell a resumed transfer (the rest of the file) from a restarted one (all of it).
// For the files to come through it, start it first (the target is read per connection) and
// give the server its URL as publicUrl, which the server signs its file URLs with.
import { type AddressInfo, type Server, type Socket, createConnection, createServer } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** Bytes the target answered, cut connections included. */
  bytesOut(): number;
  /** Connections reset so far. */
  cut(): number;
  /** Cuts `n` more connections from now on (a test arms it once the setup's own reads are done). */
  cutNext(n: number): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(
  target: string | (() => string),
  o: { cutAfter: number; cuts: number },
): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let bytesOut = 0;
  let cut = 0;
  let cuts = o.cuts;
  const server: Server = createServer((client) => {
    const { hostname, port } = new URL(typeof target === 'string' ? target : target());
    const upstream = createConnection({ host: hostname, port: Number(port) });
    let passed = 0;
    let dead = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (s === client ? upstream : client).destroy());
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (dead) return;
      if (cut < cuts && passed + chunk.length > o.cutAfter) {
        cut++;
        dead = true;
        const part = chunk.subarray(0, Math.max(0, o.cutAfter - passed));
        bytesOut += part.length;
        // Reset a moment after the last bytes went out, not at once: a reset discards what the
        // client's socket holds unread, and a server sending in bursts (1 MiB reads) leaves up
        // to a socket buffer there, so an immediate reset made how far the client got depend on
        // the machine's scheduling rather than on what was sent. Nothing more is sent meanwhile.
        upstream.destroy();
        client.write(part, () => setTimeout(() => client.resetAndDestroy(), 100));
        return;
      }
      passed += chunk.length;
      bytesOut += chunk.length;
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    bytesOut: () => bytesOut,
    cutNext: (n) => {
      cuts = cut + n;
    },
    cut: () => cut,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
