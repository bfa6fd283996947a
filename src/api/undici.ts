// undici's Agent and request() without the rest of the package. `import 'undici'` evaluates
// all of it (about 180 modules: fetch, WebSocket, EventSource, caches, mock agents, SQLite cache
// store…), which cost every API command ~60 ms of start-up (bench/results.md, node --cpu-prof).
// The CLI needs the connection pool and request(), so it loads just those: the same classes,
// so errors, types and behaviour are undici's own. Tests may still import 'undici' whole.
import type * as Undici from 'undici';
// Imported by path (not through createRequire) so that the bundler folds them into dist/.
import AgentClass from 'undici/lib/dispatcher/agent.js';
import { request as apiRequest } from 'undici/lib/api/index.js';
import { getGlobalDispatcher } from 'undici/lib/global.js';

type RequestFn = typeof Undici.request;

export const Agent = AgentClass;
export type Agent = Undici.Agent;

/** request(url, options) exactly as undici's index.js builds it for a URL string. */
export function request<TOpaque = null>(
  url: string,
  opts: Parameters<RequestFn>[1] = {},
): Promise<Undici.Dispatcher.ResponseData<TOpaque>> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new TypeError(`unsupported URL protocol in ${target.origin}; use http or https`);
  const { dispatcher = getGlobalDispatcher(), ...rest } = opts ?? {};
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Undici.Dispatcher.RequestOptions) as Promise<Undici.Dispatcher.ResponseData<TOpaque>>;
}
