// An item's files as a download sees them: where each comes from (its signed URL, kept in memory
// only), what the library says of it (size, SHA-256 where known) and the name it gets on disk.
// Pure: an item and its files (GET /api/v1/content/:id) in, a list out.
import { createHash } from 'node:crypto';
import type { CarouselFile, ContentItem } from '../api/schemas.js';
import type { MediaFacts } from '../rules/media-facts.js';
import { carouselFileName, safeName, thumbnailName } from './names.js';

export interface ItemFile {
  role: 'file' | 'thumbnail';
  /** Its name on disk, inside the item's folder (a video's own name, `03-beach.jpg`, `thumbnail.jpg`). */
  name: string;
  /** The name the library gave it (what an upload tells the library again); absent for a thumbnail. */
  fileName?: string;
  url: string;
  size?: number;
  sha256?: string;
  /** 0-based position in a carousel. */
  sortOrder?: number;
  /** The library's media facts of it (a video's are the item's, an image's its file record's). */
  media?: MediaFacts;
  /**
   * What the file is in the library, without any secret: the file's id, or for a video or a
   * thumbnail a hash of its URL's path (which names the stored object). Changes when the file does.
   */
  source: string;
}

/** A hash of a URL's path: names the object without the signature (which is in the query). */
export function sourceOfUrl(url: string): string {
  return createHash('sha256').update(pathOf(url)).digest('hex').slice(0, 16);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0]!;
  }
}

/** Why an item's file cannot be fetched: the library gave no URL for it. */
export class NoUrlError extends Error {
  constructor(itemId: string, what: string) {
    super(`the library gives no download URL for ${what} of item ${itemId}`);
    this.name = 'NoUrlError';
  }
}

/**
 * The media of an item: a video's one file, or a carousel's images by sortOrder (named with their
 * position so that name order is carousel order). `files` is GET's list (empty for a video).
 */
export function mediaFiles(item: ContentItem, files: readonly CarouselFile[]): ItemFile[] {
  if (item.type !== 'carousel') {
    if (!item.fileUrl) throw new NoUrlError(item.id, 'the video');
    const fileName = item.fileName ?? `${item.id}.mp4`;
    return [
      {
        role: 'file',
        name: safeName(fileName, `${item.id}.mp4`),
        fileName,
        url: item.fileUrl,
        ...(item.fileSize != null ? { size: item.fileSize } : {}),
        ...(item.sha256 ? { sha256: item.sha256 } : {}),
        ...(item.media ? { media: item.media } : {}),
        source: sourceOfUrl(item.fileUrl),
      },
    ];
  }
  const sorted = [...files].sort((a, b) => a.sortOrder - b.sortOrder);
  return sorted.map((f, i) => {
    if (!f.fileUrl) throw new NoUrlError(item.id, `image ${i + 1}`);
    const fileName = f.fileName ?? f.fileKey.split('/').pop() ?? `image-${i + 1}`;
    return {
      role: 'file' as const,
      name: carouselFileName(i, sorted.length, fileName),
      fileName,
      url: f.fileUrl,
      ...(f.fileSize !== undefined ? { size: f.fileSize } : {}),
      ...(f.sha256 ? { sha256: f.sha256 } : {}),
      ...(f.media ? { media: f.media } : {}),
      sortOrder: i,
      source: f.id,
    };
  });
}

/** The item's thumbnail, when it has one. */
export function thumbnailFile(item: ContentItem): ItemFile | undefined {
  if (!item.thumbnailUrl) return undefined;
  return {
    role: 'thumbnail',
    name: thumbnailName(item.thumbnailUrl),
    url: item.thumbnailUrl,
    source: sourceOfUrl(item.thumbnailUrl),
  };
}

/** Where a downloaded item goes: a video into the folder itself, a carousel into a folder of its own. */
export function downloadFolder(item: ContentItem): string | undefined {
  return item.type === 'carousel' ? safeName(item.title, item.id) : undefined;
}
