// The NDJSON summary line written item by item (src/cli/output/progress-json.ts) is exactly the
// line JSON.stringify makes of the whole summary: after the run's events, one line, for a run
// of one item and of more than one write's batch.
import { describe, expect, it } from 'vitest';
import { createJsonProgress, summaryObject } from '../../src/cli/output/progress-json.js';
import type { ItemOutcome, UploadSummary } from '../../src/upload/send/events.js';
import { bufferIO } from '../support/io.js';

const TARGET = { kind: 'remote' as const, baseUrl: 'http://127.0.0.1:1' };

function summaryOf(items: number): UploadSummary {
  const outcomes: ItemOutcome[] = Array.from({ length: items }, (_, index) => ({
    index,
    type: 'carousel',
    source: `album "${index}" ✓`,
    status: index % 5 === 0 ? 'failed' : 'created',
    filesCompleted: 10,
    filesSkipped: index % 3,
    filesTotal: 10,
    ...(index % 5 === 0 ? { message: 'PUT failed: connection reset' } : { itemId: `id-${index}` }),
    ...(index % 7 === 0 ? { appended: true as const, differs: ['title' as const] } : {}),
    title: `album ${index}`,
  }));
  return { items: outcomes, interrupted: false, bytesSent: 123_456, ms: 1234.4, skippedFiles: 2, exitCode: 4 };
}

describe('the NDJSON summary line', () => {
  it('is JSON.stringify of the whole summary, after the events, when written item by item', async () => {
    for (const items of [0, 1, 3000]) {
      const summary = summaryOf(items);
      const io = bufferIO();
      const progress = createJsonProgress(io, TARGET, undefined, true);
      progress.onEvent({ type: 'planned', items, files: 10 * items, bytes: 0, alreadyDone: 0 });
      await progress.finish(summary);
      const lines = io.out().split('\n');
      expect(lines).toHaveLength(3);
      expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'planned', items });
      expect(lines[1]).toBe(JSON.stringify(summaryObject(summary, TARGET)));
      expect(lines[2]).toBe('');
    }
  });
});
