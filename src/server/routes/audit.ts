// GET /api/v1/audit (an extension, docs/api.md): the audit log of the caller's brand, newest
// first, filtered by item, by key, by time and by bulk change, paged by the id of the oldest entry seen.
import type { FastifyInstance } from 'fastify';
import { AuditQuerySchema, type AuditEntryWire, type AuditResponse } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import type { Services } from '../context.js';
import { invalidRequest } from '../errors.js';
import type { AuditEntry } from '../repo/interface.js';
import { callerOf } from './common.js';

/** An entry as the API shows it: the brand is the caller's own, so it is left out. */
export function presentAuditEntry(e: AuditEntry): AuditEntryWire {
  return {
    id: e.id,
    at: e.at,
    action: e.action,
    itemId: e.itemId,
    keyId: e.keyId,
    keyName: e.keyName,
    requestId: e.requestId,
    batchId: e.batchId,
    details: e.details,
  } satisfies AuditEntryWire;
}

export function registerAudit(app: FastifyInstance, s: Services): void {
  app.get('/api/v1/audit', async (request) => {
    const caller = callerOf(request);
    const parsed = AuditQuerySchema.safeParse(request.query);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the audit query');
    const q = parsed.data;
    const limit = q.limit ?? LIST_LIMITS.defaultLimit;
    const page = await s.repo.listAudit(caller.brandId, {
      ...(q.itemId !== undefined ? { itemId: q.itemId } : {}),
      ...(q.keyId !== undefined ? { keyId: q.keyId } : {}),
      // Stored times are UTC ISO text, compared as text: an offset given is turned into UTC.
      ...(q.since !== undefined ? { since: new Date(q.since).toISOString() } : {}),
      ...(q.before !== undefined ? { before: q.before } : {}),
      ...(q.batchId !== undefined ? { batchId: q.batchId } : {}),
      limit,
    });
    const last = page.entries[page.entries.length - 1];
    return {
      entries: page.entries.map(presentAuditEntry),
      hasMore: page.hasMore,
      nextBefore: page.hasMore && last ? last.id : null,
    } satisfies AuditResponse;
  });
}
