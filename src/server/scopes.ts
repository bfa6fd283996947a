// Which scope each API endpoint needs (docs/api.md, Scopes): one table, checked for every /api
// request after its key is authenticated. A route the table does not name cannot be registered
// (checkRouteHasScope), so no endpoint is ever left open to every key by omission.
import { SCOPE_ALLOWS, type Scope, holds } from '../api/scopes.js';
import { apiError } from './errors.js';
import type { Caller } from './repo/interface.js';

/** `METHOD /route/pattern` → the scope a key needs for it. */
export const ENDPOINT_SCOPES: Readonly<Record<string, Scope>> = {
  'POST /api/v1/upload/presign': 'content:write',
  'POST /api/v1/upload/complete': 'content:write',
  'POST /api/v1/upload/parts': 'content:write',
  'POST /api/v1/upload/abort': 'content:write',
  'GET /api/v1/content': 'content:read',
  'GET /api/v1/content/:id': 'content:read',
  'PATCH /api/v1/content/:id': 'content:write',
  'DELETE /api/v1/content/:id': 'content:delete',
  // Extension (docs/api.md, Already there?): it reveals only the brand's own items, as listing does.
  'POST /api/v1/upload/check': 'content:read',
  // Extension (docs/api.md, Carousel images): changing an item's images is editing it.
  'PUT /api/v1/content/:id/order': 'content:write',
  'DELETE /api/v1/content/:id/files/:fileId': 'content:write',
  'PUT /api/v1/content/:id/files/:fileId': 'content:write',
  // Extensions (docs/api.md, Keys over the API and Audit log).
  'POST /api/v1/keys': 'keys:admin',
  'GET /api/v1/keys': 'keys:admin',
  'DELETE /api/v1/keys/:id': 'keys:admin',
  // Reading the log is its own scope (an editor's, or granted alone); keys:admin implies it.
  'GET /api/v1/audit': 'audit:read',
};

function endpoint(method: string, url: string): string {
  return `${method} ${url}`;
}

/** At registration: an /api route without a scope in the table is a programming error. */
export function checkRouteHasScope(method: string | string[], url: string): void {
  if (!url.startsWith('/api/')) return;
  for (const m of Array.isArray(method) ? method : [method]) {
    // Fastify adds HEAD for every GET; it answers what GET answers.
    const name = endpoint(m === 'HEAD' ? 'GET' : m, url);
    if (!(name in ENDPOINT_SCOPES)) throw new Error(`${name} has no scope in ENDPOINT_SCOPES (src/server/scopes.ts)`);
  }
}

/** A 403 `forbidden` naming the scope the caller's key lacks for this endpoint; nothing when it has it. */
export function checkScope(caller: Caller, method: string, url: string | undefined): void {
  // No route matched: the 404 answers it.
  if (url === undefined) return;
  const needed = ENDPOINT_SCOPES[endpoint(method === 'HEAD' ? 'GET' : method, url)];
  if (needed === undefined) throw new Error(`${method} ${url} has no scope in ENDPOINT_SCOPES`);
  if (holds(caller.scopes, needed)) return;
  throw apiError(
    'forbidden',
    `this API key lacks the scope ${needed} (to ${SCOPE_ALLOWS[needed]}), which ${method} ${url} needs; ask an admin of the brand for a key with it`,
    [{ path: 'scope', message: `missing scope ${needed}`, requiredScope: needed, keyScopes: caller.scopes }],
  );
}
