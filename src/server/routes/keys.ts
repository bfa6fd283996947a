// Keys over the API (an extension, docs/api.md): a keys:admin key creates, lists and revokes the
// keys of its own brand. A key never grants a scope it does not hold itself, never outlives
// itself, and the brand's last usable admin key cannot be revoked. The secret of a new key is in
// the answer once; only its hash is kept.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type KeyCreateResponse,
  KeyCreateRequestSchema,
  type KeyInfo,
  type KeyListResponse,
  type KeyRevokeResponse,
  keyInfoOf,
} from '../../api/schemas.js';
import { missingScopes } from '../../api/scopes.js';
import { actorOf } from '../auth.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest } from '../errors.js';
import type { Caller, KeyRow } from '../repo/interface.js';
import { callerOf } from './common.js';

/** A key as the API shows it: never its secret or hash, nor its user or brand ids. */
export const presentKey = (k: KeyRow): KeyInfo => keyInfoOf(k);

export function registerKeys(app: FastifyInstance, s: Services): void {
  app.post('/api/v1/keys', async (request, reply) => {
    const caller = callerOf(request);
    const parsed = KeyCreateRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the key request');
    const body = parsed.data;
    const lacking = missingScopes(caller.scopes, body.scopes);
    if (lacking.length > 0)
      throw apiError(
        'forbidden',
        `this API key cannot grant ${lacking.join(', ')}: a key may only give scopes it holds itself (${caller.scopes.join(', ')})`,
        lacking.map((scope) => ({ path: 'scopes', message: `not held by this key: ${scope}`, requiredScope: scope })),
      );
    const now = s.deps.now();
    const expiresAt = await expiryOf(s, caller, now, body.expiresInSeconds);
    const made = await s.repo.createKey({ id: caller.brandId }, now, {
      name: body.name ?? null,
      scopes: body.scopes,
      expiresAt,
      by: actorOf(request),
    });
    reply.code(201);
    return { key: presentKey(made), secret: made.key } satisfies KeyCreateResponse;
  });

  app.get('/api/v1/keys', async (request) => {
    const caller = callerOf(request);
    const keys = await s.repo.listKeys(caller.brandId);
    return { keys: keys.map(presentKey) } satisfies KeyListResponse;
  });

  app.delete('/api/v1/keys/:id', async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const caller = callerOf(request);
    const id = request.params.id;
    const outcome = await s.repo.revokeKey(id, s.deps.now(), {
      brandId: caller.brandId,
      keepLastAdmin: true,
      by: actorOf(request),
    });
    if (outcome === 'not_found')
      throw apiError('not_found', `no active key ${id} in this brand; see the ids with GET /api/v1/keys`, [
        { path: 'id', message: 'no active key of this brand' },
      ]);
    if (outcome === 'last_admin')
      throw apiError(
        'last_admin_key',
        `key ${id} is the brand's last usable key with keys:admin; create another admin key first, then revoke this one`,
        [{ path: 'id', message: 'last admin key' }],
      );
    return { revoked: true, id } satisfies KeyRevokeResponse;
  });
}

/**
 * When a new key expires: a key never outlives the key that makes it, so an expiring admin key
 * cannot mint itself a lasting one. Without expiresInSeconds the new key expires with its maker.
 */
async function expiryOf(s: Services, caller: Caller, now: Date, seconds: number | undefined): Promise<string | null> {
  const maker = (await s.repo.listKeys(caller.brandId)).find((k) => k.id === caller.keyId);
  const cap = maker?.expiresAt ?? null;
  if (seconds === undefined) return cap;
  const wanted = new Date(now.getTime() + seconds * 1000).toISOString();
  if (cap !== null && wanted > cap)
    throw apiError('invalid_request', `expiresInSeconds: the new key would outlive this key, which expires at ${cap}`, [
      { path: 'expiresInSeconds', message: `at most until ${cap}`, limit: cap },
    ]);
  return wanted;
}
