// The template tag escapes whatever is put into it; only markup it made itself goes in as is.
import { describe, expect, it } from 'vitest';
import type { Html } from '../../src/browse/html.js';
import { escapeHtml, html, safeMediaUrl } from '../../src/browse/html.js';

describe('html', () => {
  it.each([
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['"><script>alert(1)</script>', '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'],
    ["' onmouseover='x", '&#39; onmouseover=&#39;x'],
    ['Tom & Jerry', 'Tom &amp; Jerry'],
    ['café 夏 🎬', 'café 夏 🎬'],
  ])('text %j is escaped', (text, escaped) => {
    expect(html`<p title="${text}">${text}</p>`.markup).toBe(`<p title="${escaped}">${escaped}</p>`);
    expect(escapeHtml(text)).toBe(escaped);
  });

  it('markup made by the tag goes in as is; lists, numbers and nothing render as expected', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}</p>`.markup).toBe('<p><b>&lt;i&gt;</b></p>');
    expect(html`${['<a>', html`<b>x</b>`, 3, null, undefined, false]}`.markup).toBe('&lt;a&gt;<b>x</b>3');
  });

  it('an object that only looks like markup is escaped', () => {
    const fake = { markup: '<script>', toString: () => '<script>' } as unknown as Html;
    expect(html`${fake}`.markup).toBe('&lt;script&gt;');
  });
});

describe('safeMediaUrl', () => {
  it.each([
    ['https://cdn.example.com/a.jpg?sig=1', 'https://cdn.example.com/a.jpg?sig=1'],
    ['http://127.0.0.1:4000/storage/x?expires=1', 'http://127.0.0.1:4000/storage/x?expires=1'],
    ['javascript:alert(1)', undefined],
    ['JaVaScRiPt:alert(1)', undefined],
    ['data:text/html,<script>', undefined],
    ['/relative/path', undefined],
    ['', undefined],
    [null, undefined],
  ])('%j → %j', (url, expected) => {
    expect(safeMediaUrl(url)).toBe(expected);
  });
});
