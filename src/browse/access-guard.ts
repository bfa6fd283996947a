// Who may use the browse server, decided per request before any page is made. It listens on
// 127.0.0.1 only, but every web page a person has open can send requests there, and a DNS
// rebinding attack can even make them same-origin. So (as Prisma Studio learned, docs/design.md):
// - Host must be the server's own (127.0.0.1:PORT or localhost:PORT): a rebound name is refused;
// - an Origin, when sent, must be the server's own, and a request that changes something must
//   show it comes from the server's own pages: its own Origin, or, where the browser sends
//   `Origin: null` (a form post from a page with Referrer-Policy: no-referrer, as ours are),
//   `Sec-Fetch-Site: same-origin`. Cross-site form posts and fetches are refused (CSRF);
// - the printed URL holds a random per-launch token; the first request with it gets an
//   HttpOnly, SameSite=Strict cookie and is sent on to the same page without the token; without
//   that cookie every request is 401, so a page elsewhere cannot even read the grid.
// The API key is never part of any of this: it stays in the CLI process (src/browse/routes.ts).
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface Guard {
  /** The per-launch secret of the printed URL and the cookie. */
  token: string;
  port: number;
  /** Per port: cookies ignore ports, and two browse windows must not log each other out. */
  cookieName: string;
}

export function makeGuard(port: number, token: string = randomBytes(32).toString('base64url')): Guard {
  return { token, port, cookieName: `contentlib_browse_${port}` };
}

/** The URL to print and open: a path of the page with the token. */
export function launchUrl(g: Guard, path = '/'): string {
  const url = new URL(path, `http://127.0.0.1:${g.port}`);
  url.searchParams.set('token', g.token);
  return url.href;
}

export interface RequestFacts {
  method: string;
  /** Path and query as sent. */
  url: string;
  host: string | undefined;
  origin: string | undefined;
  /** Sec-Fetch-Site, which the browser sets and no page can. */
  fetchSite: string | undefined;
  cookie: string | undefined;
}

export type Verdict =
  | { kind: 'pass' }
  /** The token was in the URL: set the cookie and send the browser to `location` (the URL without it). */
  | { kind: 'login'; location: string; setCookie: string }
  | { kind: 'refuse'; status: 401 | 403; message: string };

const SAFE_METHODS = new Set(['GET', 'HEAD']);

function ownHosts(g: Guard): string[] {
  return [`127.0.0.1:${g.port}`, `localhost:${g.port}`];
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const NEEDS_LINK =
  'This page needs the link that contentlib browse printed (it carries a key for this browser). Open that link, or run contentlib browse again for a new one.';

export function judge(g: Guard, r: RequestFacts): Verdict {
  const hosts = ownHosts(g);
  if (!r.host || !hosts.includes(r.host.toLowerCase())) {
    return { kind: 'refuse', status: 403, message: `Refused: this server answers only to ${hosts.join(' or ')}.` };
  }
  const origins = hosts.map((h) => `http://${h}`);
  // "null": an opaque origin (a no-referrer form post, a sandboxed frame): says nothing either way.
  const origin = r.origin === 'null' ? undefined : r.origin?.toLowerCase();
  if (origin !== undefined && !origins.includes(origin)) {
    return { kind: 'refuse', status: 403, message: 'Refused: a request from another site.' };
  }
  if (!SAFE_METHODS.has(r.method) && origin === undefined && r.fetchSite !== 'same-origin') {
    return { kind: 'refuse', status: 403, message: 'Refused: a change must come from the pages of this server.' };
  }
  const url = new URL(r.url, 'http://self.invalid');
  const offered = url.searchParams.get('token');
  if (offered !== null) {
    if (!SAFE_METHODS.has(r.method) || !sameSecret(offered, g.token))
      return { kind: 'refuse', status: 401, message: NEEDS_LINK };
    url.searchParams.delete('token');
    return {
      kind: 'login',
      location: `${url.pathname}${url.search}`,
      setCookie: `${g.cookieName}=${g.token}; HttpOnly; SameSite=Strict; Path=/`,
    };
  }
  const held = cookieValue(r.cookie, g.cookieName);
  if (held === undefined || !sameSecret(held, g.token)) return { kind: 'refuse', status: 401, message: NEEDS_LINK };
  return { kind: 'pass' };
}

/**
 * The origin of a file URL as a CSP source, or undefined when it is not a plain http(s) origin
 * (nothing but scheme, host and port can then reach the policy, whatever a service answers).
 */
export function mediaOrigin(url: string): string | undefined {
  try {
    const { protocol, origin } = new URL(url);
    if (protocol !== 'http:' && protocol !== 'https:') return undefined;
    return /^https?:\/\/[a-z0-9.-]+(:\d+)?$|^https?:\/\/\[[0-9a-f:.]+\](:\d+)?$/i.test(origin) ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The headers of every answer. Scripts and styles only from this server (no inline script, no
 * CDN); images and media from this server and the library's file origins of this page only
 * (Immich's CSP once broke video for want of media-src); fetches only to this server; no
 * framing, no referrer (the URLs hold signatures), no sniffing, no caching of pages that hold
 * signed URLs.
 */
export function securityHeaders(fileOrigins: Iterable<string> = []): Record<string, string> {
  const files = [...new Set(fileOrigins)].join(' ');
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self'${files ? ` ${files}` : ''}`,
    `media-src ${files || "'none'"}`,
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}
