// The browse server in-process over a real test server (test/support/server.ts), talking to it
// through the real API client, as `contentlib browse` does; and a small HTTP helper that holds
// the browse cookie, for tests that fetch its pages without a browser.
import { request } from 'undici';
import type { ApiClient } from '../../src/api/client.js';
import { type RunningBrowse, startBrowse } from '../../src/browse/index.js';
import { formatProblem } from '../../src/rules/problem.js';
import { inspectThumbnail, sendThumbnail } from '../../src/upload/send/thumbnail.js';
import { inspectCarouselImage, sendCarouselImage } from '../../src/upload/send/carousel-image.js';
import { wireFile } from '../../src/upload/send/transfer.js';
import { describeError } from '../../src/cli/error-messages.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { apiClient } from './cli.js';
import { type TestServer, type TestServerOptions, serverWithKey } from './server.js';

export const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstu';

export interface BrowseFixture {
  s: TestServer;
  key: string;
  client: ApiClient;
  browse: RunningBrowse;
  /** GET/POST a page of browse with its cookie; `headers` override what is sent. */
  page(
    path: string,
    o?: { method?: 'GET' | 'POST' | 'HEAD'; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
  dispose(): Promise<void>;
}

/** `server`: options of the library's server (posters and previews, say). */
export async function browseFixture(server: TestServerOptions = {}): Promise<BrowseFixture> {
  const { s, key } = await serverWithKey({ clock: 'real', ...server });
  const client = apiClient(s.url, key);
  const browse = await startBrowse({
    library: client,
    describe: (err) => describeError(err).message,
    libraryName: `test library at ${s.url}`,
    token: TOKEN,
    setThumbnail: async (id, path, shown, signal) => {
      const thumb = await inspectThumbnail(path, shown);
      if (!thumb.ok) throw new Error(thumb.problems.map(formatProblem).join('\n'));
      const thumbnailKey = await sendThumbnail(
        thumb.file,
        { api: client, now: () => new Date(), sleep: async () => {}, policy: NO_WAIT_RETRY },
        signal,
      );
      await client.patch(id, { thumbnailKey });
    },
    replaceImage: async (id, fileId, path, shown, signal) => {
      const checked = await inspectCarouselImage(path, shown);
      if (!checked.ok) throw new Error(checked.problems.map(formatProblem).join('\n'));
      const deps = { api: client, now: () => new Date(), sleep: async () => {}, policy: NO_WAIT_RETRY };
      const file = { ...checked.file, name: shown };
      const key = await sendCarouselImage(file, deps, signal);
      await client.replaceImage(id, fileId, { key, ...wireFile(file) }, { signal });
    },
  });
  const host = new URL(browse.origin).host;
  const cookie = `contentlib_browse_${new URL(browse.origin).port}=${TOKEN}`;
  return {
    s,
    key,
    client,
    browse,
    async page(path, o = {}) {
      const method = o.method ?? (o.form ? 'POST' : 'GET');
      const headers: Record<string, string> = { host, cookie, ...(method === 'POST' ? { origin: browse.origin } : {}) };
      let body: string | undefined;
      if (o.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(o.form).toString();
      }
      Object.assign(headers, o.headers);
      for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
      const res = await request(`${browse.origin}${path}`, { method, headers, body });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    },
    async dispose() {
      await browse.close();
      await client.close();
      await s.dispose();
    },
  };
}
