// undici's Agent and request() without the rest of the package, loaded on first use. `import
// 'undici'` evaluates all of it (about 180 modules: fetch, WebSocket, EventSource, caches, mock
// agents, SQLite cache store…), which cost every API command ~60 ms of start-up (bench/results.md,
// node --cpu-prof). Even the three modules below pull in node:http (its server too), node:assert
// and llhttp's WebAssembly, ~25 ms of a remote `ls`: so they are imported dynamically, the first
// time a command streams bytes to or from storage (the upload's PUTs, download, export); the
// API's JSON calls go over node:http (./http-transport.ts). The same classes as undici's own, so
// errors, types and behaviour are undici's. Tests may still import 'undici' whole.
import type * as Undici from 'undici';

type RequestFn = typeof Undici.request;

interface UndiciModules {
  Agent: typeof Undici.Agent;
  request: (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<unknown>;
  getGlobalDispatcher: () => Undici.Dispatcher;
}

let modules: Promise<UndiciModules> | undefined;

/** undici's three modules, evaluated once. Imported by path so that the bundler folds them into dist/. */
function loadUndici(): Promise<UndiciModules> {
  modules ??= Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/index.js'),
    import('undici/lib/global.js'),
  ]).then(([agent, api, global]) => ({
    Agent: agent.default,
    request: api.request,
    getGlobalDispatcher: global.getGlobalDispatcher,
  }));
  return modules;
}

/**
 * A keep-alive undici Agent that is created when the first request() through it needs it: a
 * command that never sends storage bytes (ls, show, edit…) never loads undici.
 */
export class LazyAgent {
  readonly #options: Undici.Agent.Options;
  #agent: Undici.Agent | undefined;
  constructor(options: Undici.Agent.Options) {
    this.#options = options;
  }
  /** The Agent itself (undici is loaded by then: only request() calls this). */
  agent(m: UndiciModules): Undici.Agent {
    this.#agent ??= new m.Agent(this.#options);
    return this.#agent;
  }
  /** Closes the Agent if one was created; nothing to do otherwise. */
  async close(): Promise<void> {
    await this.#agent?.close();
  }
}

/** What request() sends through: an undici dispatcher (tests inject MockAgent or their own Agent), or a LazyAgent. */
export type Transport = Undici.Dispatcher | LazyAgent;

export type RequestOptions = Omit<NonNullable<Parameters<RequestFn>[1]>, 'dispatcher'> & { dispatcher?: Transport };

/** request(url, options) exactly as undici's index.js builds it for a URL string. */
export async function request<TOpaque = null>(
  url: string,
  opts: RequestOptions = {},
): Promise<Undici.Dispatcher.ResponseData<TOpaque>> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new TypeError(`unsupported URL protocol in ${target.origin}; use http or https`);
  const m = await loadUndici();
  const { dispatcher: given, ...rest } = opts;
  const dispatcher = given instanceof LazyAgent ? given.agent(m) : (given ?? m.getGlobalDispatcher());
  return m.request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Undici.Dispatcher.RequestOptions) as Promise<Undici.Dispatcher.ResponseData<TOpaque>>;
}
