// The one way test proxies and fake services listen: an HTTP server on 127.0.0.1 at a free port,
// and a close() that cuts the connections still open (a client's keep-alive must not hold the
// test up).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenLocal(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
