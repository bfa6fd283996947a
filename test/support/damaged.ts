// Damaged copies of a valid file, for property tests of the parsers: a few bytes overwritten,
// then cut short at any length (at least one byte).
import fc from 'fast-check';

export function damagedCopies(valid: Buffer): fc.Arbitrary<Buffer> {
  return fc
    .tuple(
      fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
      fc.nat(valid.length),
    )
    .map(([edits, cut]) => {
      const copy = Buffer.from(valid);
      for (const [at, byte] of edits) copy[at] = byte;
      return copy.subarray(0, Math.max(cut, 1));
    });
}
