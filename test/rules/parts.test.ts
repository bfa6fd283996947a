import { describe, expect, it } from 'vitest';
import {
  MULTIPART_THRESHOLDS,
  PART_LIMITS,
  asksForParts,
  offersParts,
  partBytes,
  partRange,
  partsOf,
  planParts,
} from '../../src/rules/parts.js';

const MIB = 1024 * 1024;

describe('planParts', () => {
  // One table: the size of each part and how many, by file size.
  it.each([
    ['1 byte', 1, 8 * MIB, 1],
    ['8 MiB + 1', 8 * MIB + 1, 8 * MIB, 2],
    ['a 48 MiB clip (still six parts at once)', 48 * MIB, 8 * MIB, 6],
    ['512 MiB: 64 parts of the preferred size', 512 * MIB, 8 * MIB, 64],
    ['512 MiB + 1: more than 64 of 8 MiB, so 16 MiB', 512 * MIB + 1, 16 * MIB, 33],
    ['1 GiB (longform’s limit)', 1024 * MIB, 16 * MIB, 64],
    ['4 GiB', 4096 * MIB, 64 * MIB, 64],
    ['10 GiB: 64 MiB at most, more parts', 10 * 1024 * MIB, 64 * MIB, 160],
    ['past 10,000 of 64 MiB: doubled for the part count', 10_000 * 64 * MIB + 1, 128 * MIB, 5001],
    ['10,000 × 5 GiB: the largest part, the most parts', 10_000 * 5 * 1024 * MIB, 5 * 1024 * MIB, 10_000],
  ])('%s', (_name, size, partSize, partCount) => {
    expect(planParts(size)).toEqual({ partSize, partCount });
  });

  it('keeps every part within S3’s limits, and at most 64 parts up to 4 GiB', () => {
    for (let size = 5 * MIB; size <= 64 * 1024 * MIB; size = Math.ceil(size * 1.37)) {
      const { partSize, partCount } = planParts(size);
      expect(partSize).toBeGreaterThanOrEqual(PART_LIMITS.minPartBytes);
      expect(partSize).toBeLessThanOrEqual(PART_LIMITS.maxPartBytes);
      expect(partCount).toBeLessThanOrEqual(PART_LIMITS.maxParts);
      expect(partCount * partSize).toBeGreaterThanOrEqual(size);
      if (size <= 4096 * MIB) expect(partCount).toBeLessThanOrEqual(PART_LIMITS.targetParts);
    }
  });

  it('never goes below the minimum part size', () => {
    const plan = planParts(100 * MIB, { ...PART_LIMITS, preferredPartBytes: 1 * MIB });
    expect(plan.partSize).toBe(5 * MIB);
  });

  it('refuses a size no part count can hold, and a size below 1', () => {
    expect(() => planParts(10_000 * 5 * 1024 * MIB + 1)).toThrow(/do not fit/);
    expect(() => planParts(0)).toThrow(/size ≥ 1/);
  });
});

describe('partRange', () => {
  it('covers the file exactly, the last part shorter', () => {
    const size = 20 * MIB + 3;
    const plan = planParts(size);
    const ranges = Array.from({ length: plan.partCount }, (_, i) => partRange(plan, size, i + 1));
    expect(ranges[0]).toEqual({ start: 0, end: 8 * MIB });
    expect(ranges.at(-1)).toEqual({ start: 16 * MIB, end: size });
    expect(ranges.reduce((sum, r) => sum + r.end - r.start, 0)).toBe(size);
  });

  it('refuses a part number outside the plan', () => {
    const plan = planParts(20 * MIB);
    expect(() => partRange(plan, 20 * MIB, 0)).toThrow(/not one of parts 1–3/);
    expect(() => partRange(plan, 20 * MIB, 4)).toThrow(/not one of parts 1–3/);
  });
});

describe('partBytes and partsOf', () => {
  it('give each part’s exact size under a recorded plan, null outside it', () => {
    const plan = partsOf(20 * MIB + 5, 8 * MIB);
    expect(plan).toEqual({ partSize: 8 * MIB, partCount: 3 });
    expect([1, 2, 3].map((n) => partBytes(plan, 20 * MIB + 5, n))).toEqual([8 * MIB, 8 * MIB, 4 * MIB + 5]);
    for (const n of [0, 4, 1.5]) expect(partBytes(plan, 20 * MIB + 5, n)).toBeNull();
  });
});

describe('when a file goes in parts', () => {
  it.each([
    [5 * MIB - 1, false, false],
    [5 * MIB, true, false],
    [16 * MIB, true, false],
    [16 * MIB + 1, true, true],
  ])('%d bytes: the client asks %s, this server offers %s', (size, asks, offers) => {
    expect(asksForParts(size)).toBe(asks);
    expect(offersParts(size)).toBe(offers);
  });

  it('is asked for from S3’s smallest part: below it a file is one part anyway', () => {
    expect(MULTIPART_THRESHOLDS.askFromBytes).toBe(PART_LIMITS.minPartBytes);
  });
});
