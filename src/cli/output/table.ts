// Aligned columns for terminals. Widths are fixed per column (not measured over all rows), so a
// list printed page by page stays aligned without holding every row in memory.
import stringWidth from './width.js';

export interface Column {
  header: string;
  /** Fixed width; the one column without it takes what is left of the terminal. */
  width?: number;
  /** Colors a cell after padding (so ANSI codes never upset the alignment). */
  color?: (text: string, raw: string) => string;
}

/** Cuts to `width` display columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = '';
  for (const ch of text) {
    if (stringWidth(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

const GAP = 2;

/** The width each column gets on a terminal `columns` wide (the flexible one at least 10). */
export function columnWidths(columns: readonly Column[], terminalWidth: number): number[] {
  const fixed = columns.reduce((sum, c) => sum + (c.width ?? 0), 0) + GAP * (columns.length - 1);
  const flexible = Math.max(10, terminalWidth - fixed);
  return columns.map((c) => c.width ?? flexible);
}

export function renderRow(cells: readonly string[], columns: readonly Column[], widths: readonly number[]): string {
  const parts = cells.map((cell, i) => {
    const col = columns[i]!;
    const text = truncate(cell.replace(/[\t\r\n]+/g, ' '), widths[i]!);
    const last = i === cells.length - 1;
    const padded = last ? text : pad(text, widths[i]!);
    return col.color ? col.color(padded, cell) : padded;
  });
  return parts.join(' '.repeat(GAP)).trimEnd();
}
