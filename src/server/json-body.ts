// JSON request bodies with a nesting limit checked on the raw text, before anything recurses
// into the value: JSON.parse copes with deep input, but every walk after it (zod, the size check
// of platformSettings, JSON.stringify of a stored value, jq and Python reading a listing later)
// may overflow a stack. One iterative scan, then Fastify's own parser (prototype-poisoning checks).
import type { FastifyInstance } from 'fastify';
import { apiError } from './errors.js';

/** Deep enough for any real request (platformSettings nest a few levels), far from any stack limit. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/** True when objects and arrays in `text` nest deeper than `max` (strings are skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPENERS.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(c)) {
      depth--;
    }
  }
  return false;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Methods whose requests carry no body: one that says Content-Type anyway is not refused for it. */
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** Replaces the scope's JSON parser with the depth-checked one. */
export function installJsonParser(scope: FastifyInstance): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      // Bytes that are not UTF-8 are refused, not turned into U+FFFD and stored (src/server/edge-text.ts).
      text = typeof body === 'string' ? body : UTF8.decode(body);
    } catch {
      done(
        apiError('invalid_request', 'the JSON body is not valid UTF-8; send it encoded as UTF-8', [
          { path: '', message: 'is not valid UTF-8' },
        ]),
        undefined,
      );
      return;
    }
    // Many HTTP clients send Content-Type: application/json on every request; a DELETE with
    // it and no body is still a DELETE (on a full disk, the only way to free space).
    if (text === '' && BODYLESS.has(request.method)) {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(
        apiError('invalid_request', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels; send a flatter value`, [
          { path: '', message: `nesting deeper than ${MAX_JSON_DEPTH}`, limit: MAX_JSON_DEPTH },
        ]),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
