// A remote library for the command tests that run the CLI in this process: a real server on
// 127.0.0.1 with a home of its own (where its keys are kept), one brand's key and an API client
// with it (to seed the library and read it back), and another home for the CLI, as on the
// machine of someone who only has the key.
import type { ApiClient } from '../../src/api/client.js';
import { type InProcessRemote, apiClient, createKey, startRemote, tempHome } from './cli-in-process.js';

export interface RemoteLibrary {
  url: string;
  key: string;
  client: ApiClient;
  remote: InProcessRemote;
  /** The server's home: `createKey(lib.serverHome, brand)` makes another key there. */
  serverHome: string;
  /** The CLI's home (CONTENTLIB_HOME). */
  home: string;
  /** What points the CLI at this library with the key. */
  env: { CONTENTLIB_BASE_URL: string; CONTENTLIB_API_KEY: string };
  /** Stops the server and removes both homes. */
  dispose(): Promise<void>;
}

export async function startRemoteLibrary(brand = 'acme'): Promise<RemoteLibrary> {
  const serverHome = await tempHome();
  const home = await tempHome();
  const remote = await startRemote(serverHome.dir);
  const key = await createKey(serverHome.dir, brand);
  const client = apiClient(remote.url, key);
  return {
    url: remote.url,
    key,
    client,
    remote,
    serverHome: serverHome.dir,
    home: home.dir,
    env: { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key },
    dispose: async () => {
      await client.close();
      await remote.stop();
      await home.remove();
      await serverHome.remove();
    },
  };
}
