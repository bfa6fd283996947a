// undici's Agent and request() without the rest of the package. `import 'undici'` evaluates
// all of it (about 180 modules: fetch, WebSocket, EventSource, caches, mock agents, SQLite cache
// store…), which cost every API command ~60 ms of start-up (bench/results.md, node --cpu-prof).
// The CLI needs the connection pool and request(), so it loads just those: the same classes,
// so errors, types and behaviour are undici's own. Tests may still import 'undici' whole.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

type RequestFn = typeof Undici.request;
/** undici's request as a method of a dispatcher (lib/api/api-request.js). */
type ApiRequest = (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData<unknown>>;

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
const apiRequest = (require('undici/lib/api/index.js') as { request: ApiRequest }).request;
const { getGlobalDispatcher } = require('undici/lib/global.js') as { getGlobalDispatcher: () => Undici.Dispatcher };

/** request(url, options) exactly as undici's index.js builds it for a URL string. */
export function request<TOpaque = null>(url: string, opts: Parameters<RequestFn>[1] = {}): Promise<Undici.Dispatcher.ResponseData<TOpaque>> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`unsupported URL protocol in ${target.origin}; use http or https`);
  const { dispatcher = getGlobalDispatcher(), ...rest } = opts ?? {};
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Undici.Dispatcher.RequestOptions) as Promise<Undici.Dispatcher.ResponseData<TOpaque>>;
}
