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
  it('uses the preferred 8 MiB parts for a file that fits in 10,000 of them', () => {
    expect(planParts(1024 * MIB)).toEqual({ partSize: 8 * MIB, partCount: 128 });
    expect(planParts(8 * MIB + 1)).toEqual({ partSize: 8 * MIB, partCount: 2 });
    expect(planParts(1)).toEqual({ partSize: 8 * MIB, partCount: 1 });
  });

  it('doubles the part size until the file fits in 10,000 parts', () => {
    const justOver = 10_000 * 8 * MIB + 1;
    expect(planParts(justOver)).toEqual({ partSize: 16 * MIB, partCount: 5001 });
    const huge = 10_000 * 5 * 1024 * MIB;
    const plan = planParts(huge);
    expect(plan).toEqual({ partSize: 5 * 1024 * MIB, partCount: 10_000 });
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
