// The item page's "Media" section: what the bytes say (resolution, frame rate, codecs, audio,
// bitrate, layout), in the words `show` uses (src/rules/media-facts.ts describeMedia), so the
// terminal and the page never word a fact two ways. The platforms' verdicts are ./badges.ts's.
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { type MediaFacts, describeMedia } from '../../rules/media-facts.js';
import { type Html, html } from '../html.js';

/**
 * The section's rows (`<dt>`/`<dd>` pairs): a video's facts, or for a carousel the first image's
 * (each image's shape is in the files table); nothing while they are not measured.
 */
export function mediaFacts(item: ContentItem, files: readonly CarouselFile[]): Html {
  const first = [...files].sort((a, b) => a.sortOrder - b.sortOrder)[0];
  const facts = (item.type === 'carousel' ? first?.media : item.media) as MediaFacts | null | undefined;
  if (!facts) return html``;
  return html`${describeMedia(facts).map(
    ([label, text]) =>
      html`<dt>${label}</dt>
        <dd data-field="media">${text}</dd>`,
  )}`;
}
