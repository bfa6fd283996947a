import { describe, expect, it } from 'vitest';
import { SLOW_FILE_MS, inspectionMode } from '../../src/upload/plan/scan-pace.js';

describe('inspectionMode: synchronous while files come from the cache, parallel when each waits on the disk', () => {
  it.each([
    [20, 1000, 'sync'], // 20 µs a file: the page cache
    [20, 20, 'sync'], // exactly the limit
    [20, 19, 'parallel'],
    [25, 1, 'parallel'], // one file took 25 ms: a cold disk or a network share
    [0, 0, 'sync'],
    [SLOW_FILE_MS * 64, 64, 'sync'],
    [SLOW_FILE_MS * 64 + 1, 64, 'parallel'],
  ] as const)('%d ms for %d files → %s', (ms, files, mode) => {
    expect(inspectionMode(ms, files)).toBe(mode);
  });
});
