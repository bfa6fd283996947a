// Text that no database stores, refused once at the edge of the API, before any query: NUL
// (PostgreSQL's text type has none: "invalid byte sequence for encoding UTF8: 0x00", a 500,
// while SQLite took it) and what is not UTF-8 (a percent-escape of a byte that is not, a lone
// surrogate in JSON, a body whose bytes are not). Path parameters, query parameters and every
// string of a JSON body (keys included) are checked the same way for both databases, and the
// 400 names the parameter. What text a field may hold beyond this is src/api/text-rules.ts's.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LONE_SURROGATE } from '../api/text-rules.js';
import { apiError } from './errors.js';

/** What is wrong with one string at the edge, or undefined. */
export function edgeProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'holds a NUL character';
  // A surrogate without its pair cannot be written as UTF-8.
  if (LONE_SURROGATE.test(text)) return 'is not valid UTF-8';
  return undefined;
}

/** The first string of `value` (walked: objects' keys and values, arrays) with a problem, and where. */
export function findEdgeProblem(value: unknown, path: string): { path: string; problem: string } | undefined {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = edgeProblem(v);
      if (problem) return { path: at, problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], join(at, String(i))]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, inner] = entries[i]!;
        const where = join(at, k);
        const problem = edgeProblem(k);
        if (problem) return { path: where, problem };
        stack.push([inner, where]);
      }
    }
  }
  return undefined;
}

function join(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`;
}

/** Decodes one percent-encoded piece of a URL; undefined when its bytes are not UTF-8. */
function decodePiece(piece: string): string | undefined {
  try {
    return decodeURIComponent(piece);
  } catch {
    return undefined;
  }
}

/**
 * The first problem of the raw URL: a path segment or a query parameter whose percent-escapes
 * are not UTF-8 (Fastify would hand those on as U+FFFD or as they were), or that holds NUL. Path
 * segments are named by the route's parameter at their place (`id` of `/keys/:id`).
 */
export function urlProblem(
  rawUrl: string,
  routeUrl: string | undefined,
): { path: string; problem: string } | undefined {
  const q = rawUrl.indexOf('?');
  const pathPart = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const pattern = (routeUrl ?? '').split('/');
  const segments = pathPart.split('/');
  for (let i = 0; i < segments.length; i++) {
    const name = pattern[i]?.startsWith(':') ? pattern[i]!.slice(1) : 'path';
    const decoded = decodePiece(segments[i]!);
    if (decoded === undefined) return { path: name, problem: 'is not valid UTF-8' };
    const problem = edgeProblem(decoded);
    if (problem) return { path: name, problem };
  }
  if (q < 0) return undefined;
  for (const pair of rawUrl.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const rawKey = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' ');
    const key = decodePiece(rawKey);
    if (key === undefined) return { path: 'query', problem: 'has a parameter name that is not valid UTF-8' };
    const keyProblem = edgeProblem(key);
    if (keyProblem) return { path: 'query', problem: `has a parameter name that ${keyProblem}` };
    if (eq < 0) continue;
    const value = decodePiece(pair.slice(eq + 1).replaceAll('+', ' '));
    if (value === undefined) return { path: key, problem: 'is not valid UTF-8' };
    const problem = edgeProblem(value);
    if (problem) return { path: key, problem };
  }
  return undefined;
}

/** The request's first problem: its URL's, then its body's. */
export function requestProblem(request: FastifyRequest): { path: string; problem: string } | undefined {
  return urlProblem(request.raw.url ?? '', request.routeOptions.url) ?? findEdgeProblem(request.body, '');
}

/** Refuses, in `scope`, every request whose text fails the edge check: 400 invalid_request naming the parameter. */
export function registerEdgeText(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    const found = requestProblem(request);
    if (!found) return;
    const where = found.path === '' ? 'the body' : found.path;
    throw apiError('invalid_request', `${where} ${found.problem}; send UTF-8 text without NUL`, [
      { path: found.path, message: found.problem },
    ]);
  });
}
