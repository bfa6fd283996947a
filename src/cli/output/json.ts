// --json, --json FIELDS and --jq EXPR, gh-style: whole objects by default, only the named fields
// when a list is given (an unknown name is a usage error that lists the valid ones), and a jq
// filter over the result. jq is real jq (1.7) compiled to WebAssembly by the jq-web package,
// loaded only when --jq is used: its 2.7 MB stay out of every other command's start-up. Its time
// grows with the input's size, as the jq binary's does (bench/jq.ts); jq-wasm, used before,
// copied its whole remaining input for every byte jq read (and its output for every byte
// written), so 1,000 items took 18 s.
import { createRequire } from 'node:module';
import { CONTENT_ITEM_FIELDS } from '../../api/item-fields.js';
import { didYouMean } from '../../text/suggest.js';
import { UsageError } from '../errors.js';
import type { JqEngine } from 'jq-web';

export interface JsonSelection {
  /** Only these fields of each object, in this order. */
  fields?: string[];
  /** A jq filter over the whole output; strings are printed raw (as gh --jq and jq -r do). */
  jq?: string;
}

/**
 * The fields of an item in `ls`, `show` and `edit`: every field of the item's schema
 * (src/api/item-fields.ts, which ContentItemSchema is typed against), and a carousel's `files`.
 */
export const ITEM_FIELDS = [...CONTENT_ITEM_FIELDS, 'files'] as const;

/** The fields of each rm result. */
export const RM_FIELDS = ['id', 'deleted', 'title', 'type', 'error'] as const;

/** The fields of `auth status --json`. */
export const AUTH_STATUS_FIELDS = ['target', 'brand', 'keyPrefix', 'ok'] as const;

/** The fields of each `log` entry. */
export const LOG_FIELDS = [
  'id',
  'at',
  'action',
  'itemId',
  'keyId',
  'keyName',
  'requestId',
  'batchId',
  'details',
] as const;

/** The fields of each key of `keys list` (and `keys create`, which adds `key`). */
export const KEY_FIELDS = [
  'id',
  'name',
  'brand',
  'prefix',
  'scopes',
  'createdAt',
  'expiresAt',
  'lastUsedAt',
  'revokedAt',
  'key',
] as const;

/** Every field name any command knows: a single word after --json is a field list only if it is one. */
export const ALL_FIELDS: readonly string[] = [
  ...new Set([...ITEM_FIELDS, ...RM_FIELDS, ...AUTH_STATUS_FIELDS, ...LOG_FIELDS, ...KEY_FIELDS]),
];

/** `id,title` → ['id', 'title'], each checked against the command's fields. */
export function parseFields(raw: string, valid: readonly string[], command: string): string[] {
  const fields = raw
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = fields.filter((f) => !valid.includes(f));
  if (fields.length === 0 || unknown.length > 0) {
    const what =
      unknown.length > 0
        ? `Unknown JSON field${unknown.length === 1 ? '' : 's'} for ${command}: ${unknown.map((f) => `${f}${didYouMean(f, valid)}`).join(', ')}.`
        : `--json needs field names after it for ${command}.`;
    throw new UsageError(what, `Valid fields: ${valid.join(', ')}`);
  }
  return fields;
}

/** The named fields of an object, in the order asked; a field the object lacks is null. */
export function pickFields(value: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields) return value;
  if (Array.isArray(value)) return value.map((v) => pickFields(v, fields));
  if (!value || typeof value !== 'object') return value;
  const rec = value as Record<string, unknown>;
  return Object.fromEntries(fields.map((f) => [f, rec[f] ?? null]));
}

/** jq-web's module: one instance per process, loaded on first use. */
let engine: Promise<JqEngine> | undefined;

/**
 * Required, not imported: jq-web's `module.exports` is a promise, and an ES namespace around it
 * would be a thenable that import() tries to resolve.
 */
function loadJq(): Promise<JqEngine> {
  engine ??= createRequire(import.meta.url)('jq-web') as Promise<JqEngine>;
  return engine;
}

/** jq's output for one JSON text, each result on its own line (strings raw), or '' for none. */
export async function runJq(jsonText: string, expr: string): Promise<string> {
  const jq = await loadJq();
  let out: string | undefined;
  try {
    out = jq.raw(jsonText, expr, ['-r']);
  } catch (err) {
    throw jqError(expr, err);
  }
  return out === undefined || out === '' ? '' : `${out.replace(/\n$/, '')}\n`;
}

/** jq's own words: without jq-web's exit-code line and the name of its input file. */
function jqText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err))
    .replace(/^Non-zero exit code: \d+\s*/, '')
    .replace(/ \(at inputString:\d+\)/g, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

function jqError(expr: string, err: unknown): UsageError {
  return new UsageError(
    `--jq ${JSON.stringify(expr)} failed: ${jqText(err)}`,
    'The filter is jq syntax: see https://jqlang.org/manual/',
  );
}

/** Compiles the filter once against `null`, so a typo is reported before any work is done. */
export async function checkJq(expr: string): Promise<void> {
  const jq = await loadJq();
  try {
    jq.raw('null', expr, ['-r']);
  } catch (err) {
    // Only a compile error is the filter's fault; `.[]` on null fails at run time and is fine.
    if (/compile error/i.test(jqText(err))) throw jqError(expr, err);
  }
}

/** The text --json prints for a value: whole or picked, pretty; through jq when --jq is given. */
export async function formatJson(value: unknown, sel: JsonSelection, pretty = true): Promise<string> {
  const picked = pickFields(value, sel.fields);
  if (sel.jq !== undefined) return runJq(JSON.stringify(picked), sel.jq);
  return `${pretty ? JSON.stringify(picked, null, 2) : JSON.stringify(picked)}\n`;
}

/** The command's JSON selection from the global flags, or undefined when no JSON was asked for. */
export function jsonSelection(
  globals: { json?: boolean; jsonFields?: string; jq?: string },
  valid: readonly string[] | undefined,
  command: string,
): JsonSelection | undefined {
  if (!globals.json && globals.jsonFields === undefined && globals.jq === undefined) return undefined;
  const sel: JsonSelection = {};
  if (globals.jsonFields !== undefined) {
    if (!valid)
      throw new UsageError(
        `${command} --json takes no field list: it prints a stream of events.`,
        'Use --json alone, and --jq to pick fields, e.g. --jq \'select(.type == "summary") | .items[].id\'',
      );
    sel.fields = parseFields(globals.jsonFields, valid, command);
  }
  if (globals.jq !== undefined) sel.jq = globals.jq;
  return sel;
}

/**
 * The JSON text of a small result (config, keys, login), or undefined when no JSON was asked for.
 * Its own keys are its valid fields.
 */
export async function resultJson(
  globals: { json?: boolean; jsonFields?: string; jq?: string },
  value: object,
  command: string,
  pretty = false,
): Promise<string | undefined> {
  const objects = (Array.isArray(value) ? value : [value]) as object[];
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
  const sel = jsonSelection(globals, keys, command);
  return sel ? formatJson(value, sel, pretty) : undefined;
}
