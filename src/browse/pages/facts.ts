// The places on the item page for what the bytes say (issue 39, part 1: resolution, codecs, frame
// rate …) and for the platforms' verdicts (part 3: a badge per platform). Kept apart so that
// work fills them in here without touching the page around them: each returns nothing until then.
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { type Html, html } from '../html.js';

/** The "Media" section's rows (`<dt>`/`<dd>` pairs) about the file itself; none yet. */
export function mediaFacts(_item: ContentItem, _files: readonly CarouselFile[]): Html {
  return html``;
}

/** One badge per platform the item targets, saying whether it would take it; none yet. */
export function platformBadges(_item: ContentItem): Html {
  return html``;
}
