// What rm says: the one confirmation question naming each item, and one line per id after.
import type { ContentItem } from '../../api/schemas.js';
import type { IO } from '../io.js';
import { confirm } from '../prompt.js';
import type { JsonSelection } from './json.js';
import { formatJson } from './json.js';
import { paint, write } from './mode.js';
import { loudStderr } from './quiet.js';
import { escapeText } from '../../text/escape-name.js';

/** What happened to one id. */
export type RmResult =
  | { id: string; deleted: true; title?: string; type?: string }
  | { id: string; deleted: false; error: { status?: number; code: string; message: string } };

export function confirmDeletion(quietable: IO, items: readonly ContentItem[]): Promise<boolean> {
  // Asked even with --quiet: the answer is needed.
  const io = { ...quietable, stderr: loudStderr(quietable.stderr) };
  const c = paint(io);
  const lines = items.map(
    (i) => `  ${c.cyan(escapeText(i.id))}  ${escapeText(i.type).padEnd(9)}  ${escapeText(i.title)}`,
  );
  const what = items.length === 1 ? 'this item and all its files' : `these ${items.length} items and all their files`;
  io.stderr.write(`About to delete ${what} for good:\n${lines.join('\n')}\n`);
  return confirm(io, items.length === 1 ? 'Delete it?' : `Delete all ${items.length}?`);
}

/** The server's 404 message speaks HTTP ("check the id with GET /api/v1/content"); a person needs less. */
function whyNot(error: { status?: number; message: string }): string {
  return error.status === 404 ? 'no such item in this library' : error.message;
}

/** --json: the results array on stdout. Otherwise one human line per id on stderr. */
export async function printRmResults(
  io: IO,
  json: JsonSelection | undefined,
  results: readonly RmResult[],
): Promise<void> {
  if (json) return write(io.stdout, await formatJson(results, json));
  const c = paint(io);
  for (const r of results) {
    if (r.deleted)
      io.stderr.write(
        `${c.green('Deleted')} ${escapeText(r.id)}${r.title !== undefined ? ` (${escapeText(r.type ?? '')}: ${escapeText(r.title)})` : ''}\n`,
      );
    else
      io.stderr.write(
        `${c.red('Not deleted')} ${escapeText(r.id)}: ${escapeText(whyNot(r.error))}${r.error.status ? ` (${r.error.status} ${escapeText(r.error.code)})` : ''}\n`,
      );
  }
}
