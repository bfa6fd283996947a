import { describe, expect, it } from 'vitest';
import { PART_LIMITS, partRange, planParts } from '../../src/rules/parts.js';

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
