// "Did you mean …?" for a mistyped name: the candidates nearest by edit distance (insertions,
// deletions, substitutions and swaps of neighbours), as commander suggests for options and
// commands (its helper is not exported, so the same rule is written here).

/** Optimal string alignment distance between a and b. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates nearest to `word` (case-insensitive), at most `maxEdits` edits away and
 * sharing over 40 % of their length with it, alphabetically; [] when none is that close.
 */
export function nearest(word: string, candidates: readonly string[], maxEdits = 3): string[] {
  let best = maxEdits + 1;
  let found: string[] = [];
  for (const c of new Set(candidates)) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    const length = Math.max(word.length, c.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) {
      best = distance;
      found = [c];
    } else if (distance === best) found.push(c);
  }
  return found.sort();
}

/** ` (did you mean title?)`, or '' when nothing is within two edits. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = nearest(word, candidates, 2);
  if (near.length === 0) return '';
  return ` (did you mean ${near.length === 1 ? near[0] : `one of ${near.join(', ')}`}?)`;
}
