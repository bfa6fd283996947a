// "Are there few?", asked before a page whose best index depends on the answer (issue 41): the
// audit log's brand-wide `since` (./audit.ts) and the list's authors and durations (./list-read.ts).
// SQLite keeps no statistics, so it takes the same index whatever the rows: through a narrow
// condition's index it sorts every match (seconds when most rows match), in the page's order it
// reads every row when few match (as long). Counting the narrow condition's rows through its own
// index, no further than FEW_ROWS + 1, tells the two apart for a fraction of a millisecond: few,
// and that index reads them, sorted; more, and an index in the page's order reads the page.
// PostgreSQL would choose by its statistics; both databases take the same decision.

/** At most this many rows, and the narrow condition's own index reads them. */
export const FEW_ROWS = 1000;

/** The statement that counts `from`'s rows meeting every condition, up to FEW_ROWS + 1, as `n`. */
export function fewCountSql(from: string, where: readonly string[]): string {
  return `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where.join(' AND ')} LIMIT ${FEW_ROWS + 1}) few`;
}

/** Whether a count of fewCountSql (a bigint is a string through pg) is few. */
export const isFew = (n: number | string | undefined): boolean => Number(n ?? 0) <= FEW_ROWS;
