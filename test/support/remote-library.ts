// A remote library for the tests of commands against a remote: a real server on 127.0.0.1 with
// a home of its own (where its keys are kept), one brand's key and an API client with it (to
// seed the library and read it back), and another home for the CLI, as on the machine of someone
// who only has the key. Two ways to run the server: in this process, for the command tests that
// run the CLI in-process (test/support/cli-in-process.ts), or as `contentlib serve` in its own
// process with the key from `contentlib keys create`, for the built CLI's tests (test/e2e/).
import type { ApiClient } from '../../src/api/client.js';
import * as inProcess from './cli-in-process.js';
import * as built from './cli.js';

export interface RemoteLibrary {
  url: string;
  key: string;
  client: ApiClient;
  /** The server's home: `createKey(lib.serverHome, brand)` makes another key there. */
  serverHome: string;
  /** The CLI's home (CONTENTLIB_HOME). */
  home: string;
  /** What points the CLI at this library with the key. */
  env: { CONTENTLIB_BASE_URL: string; CONTENTLIB_API_KEY: string };
  /** Another CLI home that nobody has used yet (a fresh CI runner's), removed with the rest. */
  freshHome(): Promise<string>;
  /** Stops the server and removes every home. */
  dispose(): Promise<void>;
}

interface Way {
  startRemote(home: string): Promise<{ url: string; stop(): Promise<void> }>;
  createKey(home: string, brand: string): Promise<string>;
}

async function open(way: Way, brand: string): Promise<RemoteLibrary> {
  const serverHome = await built.tempHome();
  const home = await built.tempHome();
  const homes = [serverHome, home];
  const remote = await way.startRemote(serverHome.dir);
  const key = await way.createKey(serverHome.dir, brand);
  const client = built.apiClient(remote.url, key);
  return {
    url: remote.url,
    key,
    client,
    serverHome: serverHome.dir,
    home: home.dir,
    env: { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key },
    freshHome: async () => {
      const fresh = await built.tempHome();
      homes.push(fresh);
      return fresh.dir;
    },
    dispose: async () => {
      await client.close();
      await remote.stop();
      for (const h of homes) await h.remove();
    },
  };
}

/** The library on a server in this process. */
export function startRemoteLibrary(brand = 'acme'): Promise<RemoteLibrary> {
  return open(inProcess, brand);
}

/** The library on `contentlib serve` in its own process (the built bin/contentlib.js). */
export function startServedLibrary(brand = 'acme'): Promise<RemoteLibrary> {
  return open(built, brand);
}
