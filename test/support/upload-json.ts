// What `contentlib upload --json` wrote, read as its tests read it: every stdout line checked
// against the NDJSON schema (src/cli/output/upload-ndjson.ts), the last one the summary.
import { expect } from 'vitest';
import { type SummaryLine, SummarySchema, UploadLineSchema } from '../../src/cli/output/upload-ndjson.js';

/** Every stdout line, each checked against the NDJSON schema; the last must be the summary. */
export function uploadLines(r: { stdout: string }): Array<Record<string, unknown>> {
  const parsed = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const line of parsed) {
    const check = UploadLineSchema.safeParse(line);
    expect(check.success, `${JSON.stringify(line)}: ${check.error?.message}`).toBe(true);
  }
  expect(parsed.at(-1)?.type).toBe('summary');
  return parsed;
}

/** The summary line, every line checked first. */
export const uploadSummary = (r: { stdout: string }): SummaryLine => SummarySchema.parse(uploadLines(r).at(-1));
