// A 10,000-item run's summary on stderr names at most MAX_LISTED items and counts the rest.
import { describe, expect, it } from 'vitest';
import { MAX_LISTED, summaryLines } from '../../src/cli/output/progress-summary.js';
import type { ItemOutcome } from '../../src/upload/send/events.js';

function outcome(i: number, o: Partial<ItemOutcome>): ItemOutcome {
  return {
    index: i,
    type: 'carousel',
    source: `/photos/album-${i}`,
    status: 'failed',
    filesCompleted: 0,
    filesSkipped: 0,
    filesTotal: 10,
    message: 'presign failed: quota (403 quota_exceeded)',
    ...o,
  };
}

describe('summary of a large run', () => {
  it('lists the first failures and counts the rest', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => outcome(i, {}));
    const lines = summaryLines({ items, interrupted: false, bytesSent: 0, ms: 1000 });
    expect(lines.filter((l) => l.startsWith('Failed: '))).toHaveLength(MAX_LISTED);
    expect(lines.at(-1)).toBe(`… and ${(10_000 - MAX_LISTED).toLocaleString('en-US')} more; see --json`);
  });

  it('after Ctrl-C, names the first items created and not created, then counts', () => {
    const items = Array.from({ length: 300 }, (_, i) =>
      i < 120
        ? outcome(i, { status: 'created', itemId: `id-${i}`, message: undefined })
        : outcome(i, { status: 'interrupted', message: undefined }),
    );
    const lines = summaryLines({ items, interrupted: true, bytesSent: 0, ms: 1000 });
    const created = lines.find((l) => l.startsWith('Created: '))!;
    expect(created.split(' → ')).toHaveLength(MAX_LISTED + 1);
    expect(created).toMatch(/… and 70 more; see --json$/);
    expect(lines.find((l) => l.startsWith('Not created: '))).toMatch(/… and 130 more; see --json$/);
  });

  it('names the first carousels appended to, then counts the rest', () => {
    const items = Array.from({ length: MAX_LISTED + 10 }, (_, i) =>
      outcome(i, { status: 'created', appended: true, itemId: `id-${i}`, filesCompleted: 2, message: undefined }),
    );
    const lines = summaryLines({ items, interrupted: false, bytesSent: 0, ms: 1000 });
    expect(lines[0]).toMatch(/^60 carousels appended to;/);
    const appended = lines.filter((l) => l.startsWith('Appended 2 images to id-'));
    expect(appended).toHaveLength(MAX_LISTED);
    expect(appended[0]).toBe('Appended 2 images to id-0.');
    expect(lines[MAX_LISTED + 1]).toBe('… and 10 more; see --json');
  });
});
