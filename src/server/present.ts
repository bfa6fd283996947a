// Database rows → wire JSON, typed against the response schemas the client parses with
// (src/api/schemas.ts; the wire is described in docs/api.md). fileUrl and thumbnailUrl are
// presigned GET URLs of the storage, valid for the URL lifetime; so are posterUrl and previewUrl.
import type { CarouselFile, ChangeAuthor, ContentItem } from '../api/schemas.js';
import type { MediaFacts } from '../rules/media-facts.js';
import type { Services } from './context.js';
import type { AuditEntry } from './repo/interface.js';
import type { FileRow, ItemRow } from './repo/items.js';

export type UrlSigner = (key: string) => Promise<string>;

export function urlSigner(services: Services): UrlSigner {
  const { storage, now, urlLifetimeSeconds } = services.deps;
  // Whole seconds, like the URLs' own expiry: every URL of one response expires together.
  const expiresAt = new Date((Math.floor(now().getTime() / 1000) + urlLifetimeSeconds) * 1000);
  return (key) => storage.presignGet({ key, expiresAt });
}

export async function presentItem(item: ItemRow, url: UrlSigner): Promise<ContentItem> {
  const [fileUrl, thumbnailUrl, smallUrl] = await Promise.all([
    url(item.fileKey),
    item.thumbnailKey ? url(item.thumbnailKey) : null,
    item.previewKey ? url(item.previewKey) : null,
  ]);
  const carousel = item.type === 'carousel';
  return {
    id: item.id,
    type: item.type,
    title: item.title,
    description: item.description,
    hashtags: item.hashtags,
    status: item.status,
    fileUrl,
    thumbnailUrl,
    platformSettings: item.platformSettings,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    durationSeconds: item.durationSeconds,
    fileSize: item.fileSize,
    contentType: item.contentType,
    fileName: item.fileName,
    fileCount: item.fileCount,
    sha256: item.sha256,
    thumbnailSha256: item.thumbnailKey ? item.thumbnailSha256 : null,
    media: mediaOf(item.media),
    // Extensions (issue 39): a video's poster frame, a carousel's first image's preview.
    posterUrl: carousel ? null : smallUrl,
    previewUrl: carousel ? smallUrl : null,
  } satisfies ContentItem;
}

export async function presentFile(file: FileRow, url: UrlSigner): Promise<CarouselFile> {
  const [fileUrl, previewUrl] = await Promise.all([url(file.fileKey), file.previewKey ? url(file.previewKey) : null]);
  return {
    id: file.id,
    fileKey: file.fileKey,
    sortOrder: file.sortOrder,
    fileUrl,
    fileName: file.fileName,
    contentType: file.contentType,
    fileSize: file.fileSize,
    sha256: file.sha256,
    media: mediaOf(file.media),
    previewUrl,
  } satisfies CarouselFile;
}

/** The stored facts (JSON text this server wrote), or null when none were measured. */
function mediaOf(text: string | null): MediaFacts | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as MediaFacts;
  } catch {
    return null;
  }
}

function author(e: AuditEntry | null | undefined): ChangeAuthor | null {
  return e ? { keyId: e.keyId, keyName: e.keyName, at: e.at } : null;
}

/**
 * Items as every answer shows them, each with who made it and who changed it last (createdBy,
 * updatedBy: an extension, from the audit log, null when no entry is kept), looked up for all of
 * them at once.
 */
export async function presentItems(
  s: Services,
  brandId: string,
  items: readonly ItemRow[],
  url: UrlSigner,
): Promise<ContentItem[]> {
  const authors = await s.repo.itemAuthors(
    brandId,
    items.map((i) => i.id),
  );
  return Promise.all(
    items.map(async (i) => {
      const a = authors.get(i.id);
      return { ...(await presentItem(i, url)), createdBy: author(a?.created), updatedBy: author(a?.last) };
    }),
  );
}

/** One item, as presentItems shows it. */
export async function presentOne(s: Services, brandId: string, item: ItemRow, url: UrlSigner): Promise<ContentItem> {
  return (await presentItems(s, brandId, [item], url))[0]!;
}
