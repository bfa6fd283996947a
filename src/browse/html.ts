// HTML that escapes by default: every value put into an html`…` template is escaped unless it is
// itself Html made by this tag. Titles, descriptions, file names and error messages come from the
// library (or whoever wrote into it), so no page ever concatenates text into markup by hand; the
// only way to get markup is a template literal in this code. (Datasette's rule: templates escape
// by default.)

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for an element's content and for a quoted attribute value alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup built by the html tag: the only kind of value a template inserts as it is. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What a template accepts: markup, text (escaped), numbers, nothing, or lists of these. */
export type Child = Html | string | number | boolean | null | undefined | readonly Child[];

function render(value: Child): string {
  if (value instanceof Html) return value.markup;
  if (value === null || value === undefined || value === false || value === true) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Child[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/**
 * A URL of the library (a file, a thumbnail) that may be put in src or href: http(s) only, so
 * a service answering `javascript:…` as a fileUrl cannot run script in the page. Undefined for
 * anything else (the page then shows no link).
 */
export function safeMediaUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
