// POST /api/v1/upload/check, an extension (docs/api.md): "do you already have these?" For a
// batch of (sha256, size), the caller's brand's items and files that hold exactly those bytes,
// so a client can skip what the library already has wherever it runs. Another brand's files are
// never looked at: the query is the brand's alone.
import type { FastifyInstance } from 'fastify';
import { type CheckMatch, CheckRequestSchema, type CheckResponse } from '../../api/schemas.js';
import type { Services } from '../context.js';
import { invalidRequest } from '../errors.js';
import type { HeldFile } from '../repo/interface.js';
import { callerOf } from './common.js';

export function registerCheck(app: FastifyInstance, s: Services): void {
  app.post('/api/v1/upload/check', async (request) => {
    const caller = callerOf(request);
    const parsed = CheckRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the check request');
    const asked = parsed.data.files;
    const held = await s.repo.heldFiles(caller.brandId, [...new Set(asked.map((f) => f.sha256))]);
    const bySha = new Map<string, HeldFile[]>();
    for (const h of held) bySha.set(h.sha256, [...(bySha.get(h.sha256) ?? []), h]);
    return {
      files: asked.map(({ sha256, size }) => ({
        sha256,
        size,
        // Same bytes means the same digest and the same length.
        matches: (bySha.get(sha256) ?? []).filter((h) => h.size === size).map(presentMatch),
      })),
    } satisfies CheckResponse;
  });
}

function presentMatch(h: HeldFile): CheckMatch {
  return {
    itemId: h.itemId,
    itemType: h.itemType,
    itemFileCount: h.itemFileCount,
    role: h.role,
    ...(h.fileId ? { fileId: h.fileId } : {}),
    ...(h.sortOrder !== null ? { sortOrder: h.sortOrder } : {}),
    ...(h.fileName ? { fileName: h.fileName } : {}),
  };
}
