// The frame of every page: one stylesheet and one deferred script from this server (the CSP
// allows nothing else), a skip link for keyboard users, the library's name, and a message line
// (saved, deleted, or what went wrong) announced to screen readers.
import { type Child, type Html, html } from '../html.js';
import { MIDDOT } from '../chars.js';

export interface Flash {
  kind: 'ok' | 'error';
  /** Lines of text (a CLI message: what happened, then what to do). */
  text: string;
}

export interface Frame {
  title: string;
  /** Which library this is, as the CLI's target line says it. */
  library: string;
  main: Child;
  flash?: Flash | undefined;
}

export function flashBox(flash: Flash | undefined): Html {
  if (!flash) return html``;
  const lines = flash.text.split('\n');
  return html`<div class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">
    ${lines.map((line) => html`<p>${line}</p>`)}
  </div>`;
}

export function page(f: Frame): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="no-referrer" />
        <title>${f.title} ${MIDDOT} contentlib</title>
        <link rel="stylesheet" href="/assets/browse.css" />
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
        <script src="/assets/browse.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">contentlib</a>
          <span class="library">${f.library}</span>
        </header>
        <main id="main" tabindex="-1">${flashBox(f.flash)} ${f.main}</main>
      </body>
    </html> `;
}
