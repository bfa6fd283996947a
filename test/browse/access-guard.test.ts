// Who may use the browse server, one row per request: the Host and Origin checks, the token in
// the URL that becomes a cookie, and the cookie itself.
import { describe, expect, it } from 'vitest';
import {
  type RequestFacts,
  judge,
  launchUrl,
  makeGuard,
  mediaOrigin,
  securityHeaders,
} from '../../src/browse/access-guard.js';

const g = makeGuard(4100, 'secret-token');
const cookie = 'contentlib_browse_4100=secret-token';
const base: RequestFacts = {
  method: 'GET',
  url: '/',
  host: '127.0.0.1:4100',
  origin: undefined,
  fetchSite: undefined,
  cookie,
};

describe('judge', () => {
  const rows: Array<[string, Partial<RequestFacts>, string]> = [
    ['the cookie', {}, 'pass'],
    ['localhost as the host', { host: 'localhost:4100' }, 'pass'],
    ['a same-origin POST', { method: 'POST', origin: 'http://127.0.0.1:4100' }, 'pass'],
    ['no cookie', { cookie: undefined }, '401'],
    ['a wrong cookie', { cookie: 'contentlib_browse_4100=guess' }, '401'],
    ["another port's cookie", { cookie: 'contentlib_browse_4101=secret-token' }, '401'],
    ['the token in the URL', { cookie: undefined, url: '/items/abc?token=secret-token' }, 'login'],
    ['a wrong token in the URL', { cookie: undefined, url: '/?token=nope' }, '401'],
    ['the token on a POST', { method: 'POST', origin: 'http://127.0.0.1:4100', url: '/?token=secret-token' }, '401'],
    ['a rebound host name (DNS rebinding)', { host: 'evil.example:4100' }, '403'],
    ['another port as the host', { host: '127.0.0.1:4101' }, '403'],
    ['no Host', { host: undefined }, '403'],
    ['a cross-site Origin', { origin: 'https://evil.example' }, '403'],
    ['a cross-site POST with the cookie', { method: 'POST', origin: 'https://evil.example' }, '403'],
    ['a POST without an Origin', { method: 'POST' }, '403'],
    // Our pages send no referrer, so Chromium posts their forms with Origin: null; Sec-Fetch-Site vouches for them.
    [
      'a form post of our page (Origin null, same-origin)',
      { method: 'POST', origin: 'null', fetchSite: 'same-origin' },
      'pass',
    ],
    [
      'a sandboxed cross-site page (Origin null, cross-site)',
      { method: 'POST', origin: 'null', fetchSite: 'cross-site' },
      '403',
    ],
    ['Origin null and no Sec-Fetch-Site', { method: 'POST', origin: 'null' }, '403'],
    [
      'a cross-site Origin claiming same-origin',
      { method: 'POST', origin: 'https://evil.example', fetchSite: 'same-origin' },
      '403',
    ],
    ['a same-site POST without Origin', { method: 'POST', fetchSite: 'same-site' }, '403'],
    ['a rebound host even with the token', { host: 'evil.example:4100', url: '/?token=secret-token' }, '403'],
  ];
  it.each(rows)('%s → %s', (_what, over, expected) => {
    const v = judge(g, { ...base, ...over });
    expect(v.kind === 'refuse' ? String(v.status) : v.kind).toBe(expected);
  });

  it('the token becomes an HttpOnly, SameSite=Strict cookie, and the browser is sent on without it', () => {
    const v = judge(g, { ...base, cookie: undefined, url: '/items/a%20b?status=draft&token=secret-token' });
    expect(v).toEqual({
      kind: 'login',
      location: '/items/a%20b?status=draft',
      setCookie: 'contentlib_browse_4100=secret-token; HttpOnly; SameSite=Strict; Path=/',
    });
  });

  it('the printed URL is on 127.0.0.1 with the token', () => {
    expect(launchUrl(g, '/items/x')).toBe('http://127.0.0.1:4100/items/x?token=secret-token');
    expect(makeGuard(1).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(makeGuard(1).token).not.toBe(makeGuard(1).token);
  });
});

describe('the CSP', () => {
  it('allows script and style from this server only, and media from the given file origins only', () => {
    const csp = securityHeaders(['http://127.0.0.1:5000', 'http://127.0.0.1:5000'])['Content-Security-Policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("img-src 'self' http://127.0.0.1:5000;");
    expect(csp).toContain('media-src http://127.0.0.1:5000;');
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe');
    expect(securityHeaders()['Content-Security-Policy']).toContain("media-src 'none'");
  });

  it.each([
    ['https://bucket.s3.eu-west-1.amazonaws.com/k?X-Amz-Signature=1', 'https://bucket.s3.eu-west-1.amazonaws.com'],
    ['http://127.0.0.1:5000/storage/a', 'http://127.0.0.1:5000'],
    ['http://[::1]:5000/storage/a', 'http://[::1]:5000'],
    ["http://a;script-src 'unsafe-inline'/x", undefined],
    ['javascript:alert(1)', undefined],
    ['not a url', undefined],
  ])('the file origin of %j is %j', (url, origin) => {
    expect(mediaOrigin(url)).toBe(origin);
  });
});
