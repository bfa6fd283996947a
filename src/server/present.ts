// Database rows → wire JSON (spec section 2, plus the extra fields of ContentItemSchema).
// fileUrl and thumbnailUrl are signed GET URLs on this server, valid for the URL lifetime.
import type { Services } from './context.js';
import type { FileRow, ItemRow } from './repo/items.js';
import { signedUrl } from './signing.js';

export type UrlSigner = (key: string) => string;

export function urlSigner(services: Services, baseUrl: string): UrlSigner {
  const { secret, now, urlLifetimeSeconds } = services.deps;
  const expires = Math.floor(now().getTime() / 1000) + urlLifetimeSeconds;
  return (key) => signedUrl(baseUrl, secret, { method: 'GET', key, expires });
}

export function presentItem(item: ItemRow, url: UrlSigner) {
  return {
    id: item.id,
    type: item.type,
    title: item.title,
    description: item.description,
    hashtags: item.hashtags,
    status: item.status,
    fileUrl: url(item.fileKey),
    thumbnailUrl: item.thumbnailKey ? url(item.thumbnailKey) : null,
    platformSettings: item.platformSettings,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    durationSeconds: item.durationSeconds,
    fileSize: item.fileSize,
    contentType: item.contentType,
    fileName: item.fileName,
    fileCount: item.fileCount,
  };
}

export function presentFile(file: FileRow, url: UrlSigner) {
  return {
    id: file.id,
    fileKey: file.fileKey,
    sortOrder: file.sortOrder,
    fileUrl: url(file.fileKey),
    fileName: file.fileName,
    contentType: file.contentType,
    fileSize: file.fileSize,
  };
}
