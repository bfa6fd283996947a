// The action's pure parts: its inputs → contentlib's command line, and the job summary's Markdown
// (escaped titles, and cut to stay under GitHub's 1 MiB per step, saying so).
import { describe, expect, it } from 'vitest';
import { InputError, readInputs, splitWords, uploadArgs } from '../../src/action/inputs.js';
import { SUMMARY_LIMIT_BYTES, cell, jobSummary, type RunRecord } from '../../src/action/job-summary.js';
import { summaryItem } from '../../src/cli/output/progress-json.js';
import type { SummaryLine } from '../../src/cli/output/upload-ndjson.js';

/** A created clip's line in `upload --json`'s summary, as the CLI writes it (summaryItem). */
const item = (k: number, title: string | null = `Clip ${k}`): SummaryLine['items'][number] =>
  summaryItem({
    index: k,
    type: 'shortform',
    source: `clips/${k}.mp4`,
    status: 'created',
    itemId: `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`,
    filesCompleted: 1,
    filesSkipped: 0,
    filesTotal: 1,
    ...(title === null ? {} : { title }),
  });

const summary = (items: SummaryLine['items']): SummaryLine => ({
  type: 'summary',
  target: { kind: 'remote', baseUrl: 'https://content.example.com' },
  exitCode: 0,
  refused: false,
  created: items.length,
  appended: 0,
  skipped: 0,
  partial: 0,
  failed: 0,
  interrupted: false,
  problems: 0,
  skippedFiles: 0,
  inLibraryFiles: 0,
  differing: 0,
  updated: 0,
  leftOut: 0,
  missingScope: null,
  bytesSent: 1024,
  bytesKept: 0,
  ms: 1200,
  items,
});

const record = (over: Partial<RunRecord>): RunRecord => ({
  problems: [],
  skipped: [],
  failed: [],
  exitCode: 0,
  ...over,
});

describe('job summary', () => {
  it('a table of the items: title, type, id, outcome; the title comes first, the source when there is none', () => {
    const md = jobSummary(record({ summary: summary([item(1), item(2, null)]) }));
    expect(md).toContain('## contentlib upload');
    expect(md).toContain('2 created to https://content.example.com; 1.0 KB sent in 1.2 s (exit 0).');
    expect(md).toContain('| Clip 1 | shortform | `00000000-0000-4000-8000-000000000001` | created |');
    expect(md).toContain('| clips/2.mp4 | shortform |');
  });

  it.each([
    ['a | pipe', 'a \\| pipe'],
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['two\nlines', 'two lines'],
    ['*bold* _it_ `code` [link](x)', '\\*bold\\* \\_it\\_ \\`code\\` \\[link\\](x)'],
  ])('a title %j cannot break the page', (title, shown) => {
    expect(cell(title)).toBe(shown);
  });

  it('items already in the library: what differs (not changed) and what update-metadata changed, in the outcome', () => {
    const s = summary([
      { ...item(1), outcome: 'skipped', differs: ['title', 'status'] },
      { ...item(2), outcome: 'skipped', updated: ['hashtags'] },
    ]);
    const md = jobSummary(record({ summary: { ...s, created: 0, skipped: 2, differing: 1, updated: 1 } }));
    expect(md).toContain('0 created, 2 already there, 1 updated, 1 differing from the library (not changed)');
    expect(md).toContain(
      '| skipped: differs from the library: title, status; not changed (update-metadata: true applies them) |',
    );
    expect(md).toContain('| skipped: updated: hashtags |');
  });

  it('stays under 1 MiB with 20,000 items and 20,000 skipped files, saying how many rows it left out', () => {
    const items = Array.from({ length: 20_000 }, (_, k) =>
      item(k, `A long title for clip number ${k} ${'x'.repeat(40)}`),
    );
    const skipped = Array.from({ length: 20_000 }, (_, k) => ({
      path: `raw/${k}.heic`,
      reason: 'a HEIC image, not supported',
    }));
    const md = jobSummary(record({ summary: summary(items), skipped }));
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(1024 * 1024);
    expect(Buffer.byteLength(md)).toBeGreaterThan(SUMMARY_LIMIT_BYTES / 2);
    expect(md).toMatch(/… and [\d,]+ more items, left out to keep this summary under GitHub's 1 MiB/);
    expect(md).toContain('### Skipped files');
    expect(md).toMatch(/… and [\d,]+ more skipped files/);
  });

  it('a refusal: the headline says nothing was uploaded; the problems are listed', () => {
    const refused = { ...summary([]), refused: true, exitCode: 2, problems: 1 };
    const md = jobSummary(
      record({
        summary: refused,
        exitCode: 2,
        problems: [
          {
            subject: 'a.mp4',
            rule: 'empty',
            message: 'the file is empty (0 bytes)',
            hint: 'export or copy it again',
            leftOut: false,
          },
        ],
      }),
    );
    expect(md).toContain('Nothing was uploaded: the upload was refused (exit 2).');
    expect(md).toContain('- a.mp4: the file is empty (0 bytes) (export or copy it again)');
  });
});

describe('inputs', () => {
  it('become the command line of contentlib upload --json, paths after --', () => {
    const i = readInputs({
      INPUT_PATHS: 'media/\n "clips/*.mp4" \n\n-odd.mp4',
      'INPUT_BASE-URL': 'https://content.example.com',
      INPUT_API_KEY: 'cl_x',
      INPUT_STRICT: 'true',
      INPUT_UPDATE_METADATA: 'true',
      INPUT_CONCURRENCY: '8',
      INPUT_FLAGS: `--skip-invalid --title "Launch day" --hashtags 'a, b'`,
    });
    expect(i).toMatchObject({ baseUrl: 'https://content.example.com', apiKey: 'cl_x', ifNoFilesFound: 'warn' });
    expect(uploadArgs(i)).toEqual([
      'upload',
      '--json',
      '--strict',
      '--update-metadata',
      '--concurrency',
      '8',
      '--skip-invalid',
      '--title',
      'Launch day',
      '--hashtags',
      'a, b',
      '--',
      'media/',
      '"clips/*.mp4"',
      '-odd.mp4',
    ]);
  });

  it.each([
    [{}, 'Give the input paths'],
    [{ INPUT_PATHS: 'a', INPUT_STRICT: 'yes' }, 'must be true or false'],
    [{ INPUT_PATHS: 'a', INPUT_FLAGS: '--title "open' }, 'unclosed'],
  ])('%j is an input error', (env, words) => {
    expect(() => readInputs(env)).toThrow(InputError);
    expect(() => readInputs(env)).toThrow(words);
  });

  it('splits flags like a shell, without expanding anything', () => {
    expect(splitWords(`a "b c" 'd $HOME' e\\ f`)).toEqual(['a', 'b c', 'd $HOME', 'e f']);
    expect(splitWords('')).toEqual([]);
  });
});
