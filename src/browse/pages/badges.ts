// A badge per target platform on each item (issue 39), judged by the same checker as
// `contentlib check` (src/rules/platforms.ts) on the facts the library measured. Only for the
// platforms the item targets (platformSettings.contentlib.targets, set by `upload --for`): an
// item aimed nowhere gets no badges rather than a row of guesses. A carousel is judged by its
// images, which only the item page has; the grid says so on its badge.
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import type { MediaFacts } from '../../rules/media-facts.js';
import { type PlatformId, type Violation, checkFor, checkImageCount, targetsOf } from '../../rules/platforms.js';
import { type Html, html } from '../html.js';

const LABELS: Record<PlatformId, string> = {
  shorts: 'Shorts',
  reels: 'Reels',
  'instagram-feed': 'Instagram feed',
  tiktok: 'TikTok',
  'facebook-reels': 'Facebook Reels',
  x: 'X',
  linkedin: 'LinkedIn',
};

export interface Verdict {
  platform: PlatformId;
  state: 'ready' | 'warning' | 'not-ready' | 'unknown';
  /** What to tell: the violations' messages, or why nothing can be said. */
  why: string[];
}

/** The item's verdict for each of its targets; `files` undefined where the page has none (the grid). */
export function verdicts(item: ContentItem, files?: readonly CarouselFile[]): Verdict[] {
  return targetsOf(item.platformSettings).map((platform) => verdict(item, files, platform));
}

function verdict(item: ContentItem, files: readonly CarouselFile[] | undefined, platform: PlatformId): Verdict {
  const text = {
    ...(item.description ? { description: item.description } : {}),
    ...(item.hashtags ? { hashtags: item.hashtags } : {}),
  };
  const judge = (facts: MediaFacts | null | undefined, fileSize: number | null | undefined) =>
    facts ? checkFor({ facts, fileSize: fileSize ?? 0, ...text }, platform) : undefined;
  let found: Violation[] = [];
  if (item.type === 'carousel') {
    const count = checkImageCount(item.fileCount ?? files?.length ?? 0, platform);
    if (count) found.push(count);
    if (!files) return count ? state(platform, found) : unknown(platform, 'open the item to judge its images');
    for (const f of files) {
      const v = judge(f.media, f.fileSize);
      if (!v) return unknown(platform, 'an image has not been measured yet');
      found = [...found, ...v];
    }
    return state(platform, found);
  }
  const v = judge(item.media, item.fileSize);
  return v ? state(platform, v) : unknown(platform, 'not measured yet');
}

function state(platform: PlatformId, found: readonly Violation[]): Verdict {
  const errors = found.filter((v) => v.severity === 'error');
  const why = [...new Set((errors.length > 0 ? errors : found).map((v) => v.message))];
  return { platform, state: errors.length > 0 ? 'not-ready' : found.length > 0 ? 'warning' : 'ready', why };
}

const unknown = (platform: PlatformId, why: string): Verdict => ({ platform, state: 'unknown', why: [why] });

const MARKS = { ready: '✓', warning: '!', 'not-ready': '✗', unknown: '?' } as const;
const WORDS = {
  ready: 'ready',
  warning: 'ready, with a warning',
  'not-ready': 'not ready',
  unknown: 'not known',
} as const;

/** The badges, or nothing when the item targets no platform. */
export function platformBadges(item: ContentItem, files?: readonly CarouselFile[]): Html {
  const all = verdicts(item, files);
  if (all.length === 0) return html``;
  return html`<span class="platform-badges"
    >${all.map(
      (v) =>
        html` <span
          class="badge platform platform-${v.state}"
          data-platform="${v.platform}"
          title="${[`${LABELS[v.platform]}: ${WORDS[v.state]}`, ...v.why].join('\n')}"
          >${MARKS[v.state]} ${LABELS[v.platform]}<span class="visually-hidden">: ${WORDS[v.state]}</span></span
        >`,
    )}</span
  >`;
}
