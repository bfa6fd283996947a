// A dependency's outages on demand: a TCP proxy on 127.0.0.1 in front of a real server (an S3
// endpoint, a database) that can be taken down (listener closed, every connection cut: the
// client sees connection refused and resets), frozen (connections are accepted and bytes taken,
// but nothing is passed on or answered: what a SIGSTOPped or hung server looks like), and brought
// back on the same port.
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface OutageProxy {
  url: string;
  /** Refuse connections and cut the open ones. */
  down(): Promise<void>;
  /** Accept connections but pass nothing on, either way, until up(). */
  freeze(): void;
  /** Back to passing everything on (listening again after down()). */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startOutageProxy(target: string): Promise<OutageProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const held: Socket[] = [];

  const pass = (client: Socket) => {
    const upstream = createConnection({ host: hostname, port: Number(targetPort) });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  };

  const onConnection = (client: Socket) => {
    if (!frozen) return pass(client);
    // Held: the client's bytes are read and dropped, nothing ever comes back.
    sockets.add(client);
    held.push(client);
    client.on('data', () => undefined);
    client.on('error', () => sockets.delete(client)).on('close', () => sockets.delete(client));
  };

  let server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const cutAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    held.length = 0;
  };
  const closeListener = () => new Promise<void>((resolve) => server.close(() => resolve()));

  return {
    url: `http://127.0.0.1:${port}`,
    async down() {
      const closed = closeListener();
      cutAll();
      await closed;
    },
    freeze() {
      frozen = true;
      // Connections already open stop too: their bytes go nowhere.
      for (const s of sockets) {
        s.unpipe();
        s.removeAllListeners('data');
        s.on('data', () => undefined);
      }
    },
    async up() {
      // A frozen connection never recovers (its bytes were lost): it is cut, as after a restart.
      if (frozen) cutAll();
      frozen = false;
      if (!server.listening) {
        server = createServer(onConnection);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', resolve);
        });
      }
    },
    async close() {
      cutAll();
      if (server.listening) await closeListener();
    },
  };
}
