// Types for the three undici modules src/api/undici.ts imports by path (undici ships types only
// for its package entry). They are undici's own classes and functions, typed as its entry types them.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  /** request() as a method of a dispatcher, before index.js binds it to a URL. */
  export function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData<unknown>>;
}

declare module 'undici/lib/global.js' {
  import type { Dispatcher } from 'undici';
  export function getGlobalDispatcher(): Dispatcher;
}
