// POST /api/v1/upload/complete: the checks, the promote and the completion are
// `completeUpload` (../complete-upload.ts), which a carousel's image replace runs too.
import type { FastifyInstance } from 'fastify';
import { CompleteRequestSchema } from '../../api/schemas.js';
import { actorOf } from '../auth.js';
import { completeUpload } from '../complete-upload.js';
import type { Services } from '../context.js';
import { invalidRequest } from '../errors.js';
import { callerOf } from './common.js';

export function registerComplete(app: FastifyInstance, s: Services): void {
  app.post('/api/v1/upload/complete', async (request) => {
    const caller = callerOf(request);
    const parsed = CompleteRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the complete request');
    const body = parsed.data;
    const actor = actorOf(request);
    // Completes of one key run one after another: a repeat sees the first one's item.
    return s.oneAtATime(body.key, () => completeUpload(s, caller, actor, body));
  });
}
