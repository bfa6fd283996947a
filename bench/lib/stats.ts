// Small numeric helpers: every figure in results.md is a median of several runs.

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const MIB = 1024 * 1024;

/** Megabytes (2^20, as src/rules/rules.ts counts them) per second. */
export function mbPerSecond(bytes: number, ms: number): number {
  return ms > 0 ? bytes / MIB / (ms / 1000) : NaN;
}

export function fixed(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}
