// The responses of the Content Library Service (docs/api.md), loose: a remote service may send
// more fields than these. Part of ./schemas.ts (which re-exports them with the requests), in a
// module of its own so that the client, which reads only answers, builds only these: zod's
// schema construction was ~9 % of the CPU of `ls` (bench/notes.md). For the same reason every
// schema but the item and the list page is z.lazy: built the first time it parses, so `ls` builds
// only what it reads (~2 ms of CPU, issue 33).
import * as z from 'zod';
import { CONTENT_TYPES, STATUSES } from '../rules/rules.js';
import type { ContentItemField } from './item-fields.js';

export const ContentTypeSchema = z.enum(CONTENT_TYPES);
export const StatusSchema = z.enum(STATUSES);

export const PresignResponseSchema = z.lazy(() =>
  z.looseObject({
    presignedUrl: z.string().url(),
    /** An extension (docs/api.md "Multipart uploads"): present when the service offers parts. */
    multipart: z
      .looseObject({ partSize: z.number().int().positive(), partCount: z.number().int().positive() })
      .optional(),
    key: z.string(),
    fileId: z.string(),
    type: ContentTypeSchema,
    /** Headers the PUT must carry with exactly these values (an S3 store signs the checksum among them). */
    headers: z.record(z.string(), z.string()).optional(),
  }),
);
export type PresignResponse = z.infer<typeof PresignResponseSchema>;

/** Who made a change (an extension: GET /api/v1/content/:id's createdBy and updatedBy, from the audit log). */
export const ChangeAuthorSchema = z.looseObject({
  keyId: z.string().nullable(),
  keyName: z.string().nullable(),
  at: z.string(),
});
export type ChangeAuthor = z.infer<typeof ChangeAuthorSchema>;

/**
 * Extension (issue 39, docs/api.md "Media facts"): what the file's own bytes say, measured by the
 * server's parsers at complete (src/media/facts.ts). The type is src/rules/media-facts.ts's
 * MediaFacts (test/media/facts.test.ts fails to compile when the two drift). Optional wherever it
 * appears: other services send none, and older items have none until the sweeper measures them.
 */
export const AudioFactsSchema = z.object({
  codec: z.string(),
  profile: z.string().optional(),
  channels: z.number(),
  sampleRate: z.number(),
});
export const MediaFactsSchema = z.object({
  version: z.number(),
  kind: z.enum(['video', 'image']),
  width: z.number(),
  height: z.number(),
  displayWidth: z.number(),
  displayHeight: z.number(),
  displayAspectRatio: z.string(),
  orientation: z.enum(['portrait', 'landscape', 'square']),
  rotation: z.number().optional(),
  exifOrientation: z.number().optional(),
  imageFormat: z.string().optional(),
  durationSeconds: z.number().optional(),
  frameRate: z.number().optional(),
  variableFrameRate: z.boolean().optional(),
  videoCodec: z.string().optional(),
  videoCodecTag: z.string().optional(),
  videoProfile: z.string().optional(),
  bitDepth: z.number().optional(),
  audio: AudioFactsSchema.nullable().optional(),
  bitrate: z.number().optional(),
  fastStart: z.boolean().optional(),
  fragmented: z.boolean().optional(),
});
export type MediaFactsWire = z.infer<typeof MediaFactsSchema>;

/**
 * The item's shape: exactly the fields CONTENT_ITEM_FIELDS names (`satisfies` refuses a missing
 * one and an extra one), which is what `--json FIELDS` offers for ls, show and edit.
 */
const contentItemShape = {
  id: z.string(),
  type: ContentTypeSchema,
  title: z.string(),
  description: z.string().nullable().optional(),
  hashtags: z.array(z.string()).nullable().optional(),
  status: StatusSchema,
  fileUrl: z.string().nullable().optional(),
  thumbnailUrl: z.string().nullable(),
  platformSettings: z.record(z.string(), z.unknown()).nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  // Fields the embedded server sends and a remote service may not: optional.
  durationSeconds: z.number().nullable().optional(),
  fileSize: z.number().nullable().optional(),
  contentType: z.string().nullable().optional(),
  fileName: z.string().nullable().optional(),
  fileCount: z.number().optional(),
  // Extensions: the SHA-256 of the main file and of the thumbnail; null while not yet computed.
  sha256: z.string().nullable().optional(),
  thumbnailSha256: z.string().nullable().optional(),
  createdBy: ChangeAuthorSchema.nullable().optional(),
  updatedBy: ChangeAuthorSchema.nullable().optional(),
  // Extension: the main file's facts (a carousel's are per image, in its files); null until measured.
  media: MediaFactsSchema.nullable().optional(),
  // Extensions (docs/api.md, Posters and previews): a small JPEG of a video's frame (posterUrl) or
  // of a carousel's first image (previewUrl), made in the background after complete; null until
  // made, absent from services that make none.
  posterUrl: z.string().nullable().optional(),
  previewUrl: z.string().nullable().optional(),
} satisfies Record<ContentItemField, z.ZodType>;
export const ContentItemSchema = z.looseObject(contentItemShape);
export type ContentItem = z.infer<typeof ContentItemSchema>;

export const CarouselFileSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    fileKey: z.string(),
    sortOrder: z.number().int(),
    fileUrl: z.string().optional(),
    fileName: z.string().optional(),
    contentType: z.string().optional(),
    fileSize: z.number().optional(),
    /** Hex SHA-256 of the image, where the service keeps one. */
    sha256: z.string().nullable().optional(),
    /** Extension: the image's facts (width, height, orientation); null until measured. */
    media: MediaFactsSchema.nullable().optional(),
    /** Extension: a small JPEG of the image, null until made (docs/api.md, Posters and previews). */
    previewUrl: z.string().nullable().optional(),
  }),
);
export type CarouselFile = z.infer<typeof CarouselFileSchema>;

export const CompleteResponseSchema = z.lazy(() =>
  z.looseObject({
    item: ContentItemSchema,
    contentItemId: z.string(),
    file: CarouselFileSchema.optional(),
  }),
);
export type CompleteResponse = z.infer<typeof CompleteResponseSchema>;

export const ListResponseSchema = z.looseObject({
  items: z.array(ContentItemSchema),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
  /** Extension: the `cursor` of the next page (keyset paging), null on the last; absent from other services. */
  nextCursor: z.string().nullable().optional(),
});
export type ListResponse = z.infer<typeof ListResponseSchema>;

export const GetResponseSchema = z.lazy(() =>
  z.looseObject({
    item: ContentItemSchema,
    files: z.array(CarouselFileSchema).optional().default([]),
  }),
);
export type GetResponse = z.infer<typeof GetResponseSchema>;

export const PatchResponseSchema = z.lazy(() => z.looseObject({ item: ContentItemSchema }));
export type PatchResponse = z.infer<typeof PatchResponseSchema>;

export const DeleteResponseSchema = z.lazy(() => z.looseObject({ deleted: z.literal(true) }));
export type DeleteResponse = z.infer<typeof DeleteResponseSchema>;

// ---- Extension: a carousel's images after upload (docs/api.md, Carousel images) -------------

/** Reorder and remove answer with the carousel as GET does: the item and its images in order. */
export const CarouselResponseSchema = z.lazy(() =>
  z.looseObject({
    item: ContentItemSchema,
    files: z.array(CarouselFileSchema),
  }),
);
export type CarouselResponse = z.infer<typeof CarouselResponseSchema>;

/** Replace adds the new image's record (the one that took the place; absent should it be gone already). */
export const ReplaceImageResponseSchema = z.lazy(() =>
  z.looseObject({
    item: ContentItemSchema,
    files: z.array(CarouselFileSchema),
    file: CarouselFileSchema.optional(),
  }),
);
export type ReplaceImageResponse = z.infer<typeof ReplaceImageResponseSchema>;

// ---- Extensions: keys over the API, and the audit log (docs/api.md) ------------------------

export const KeyInfoSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string().nullable(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  }),
);
export type KeyInfo = z.infer<typeof KeyInfoSchema>;

/** The fields of a key the API shows (without the schema's room for fields a later server adds). */
export type KeyFields = Pick<
  KeyInfo,
  'id' | 'name' | 'prefix' | 'scopes' | 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'revokedAt'
>;

/**
 * A key as the API shows it, from any record that has these fields (the server's row, an
 * answer): exactly them, in this order; never its secret or hash, nor its user or brand ids.
 */
export function keyInfoOf(k: KeyFields): KeyInfo {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

export const KeyCreateResponseSchema = z.lazy(() => z.looseObject({ key: KeyInfoSchema, secret: z.string() }));
export type KeyCreateResponse = z.infer<typeof KeyCreateResponseSchema>;

export const KeyListResponseSchema = z.lazy(() => z.looseObject({ keys: z.array(KeyInfoSchema) }));
export type KeyListResponse = z.infer<typeof KeyListResponseSchema>;

export const KeyRevokeResponseSchema = z.lazy(() => z.looseObject({ revoked: z.literal(true), id: z.string() }));
export type KeyRevokeResponse = z.infer<typeof KeyRevokeResponseSchema>;

export const AuditEntrySchema = z.lazy(() =>
  z.looseObject({
    id: z.number(),
    at: z.string(),
    action: z.string(),
    itemId: z.string().nullable(),
    keyId: z.string().nullable(),
    keyName: z.string().nullable(),
    requestId: z.string().nullable(),
    /** Extension: the bulk change this entry belongs to (BATCH_HEADER), or null. */
    batchId: z.string().nullable().optional(),
    details: z.record(z.string(), z.unknown()),
  }),
);
export type AuditEntryWire = z.infer<typeof AuditEntrySchema>;

export const AuditResponseSchema = z.lazy(() =>
  z.looseObject({
    entries: z.array(AuditEntrySchema),
    hasMore: z.boolean(),
    /** The `before` of the next (older) page; null on the last page. */
    nextBefore: z.number().nullable(),
  }),
);
export type AuditResponse = z.infer<typeof AuditResponseSchema>;
/** Where a brand holds a file's bytes: as an item's main file, a carousel image, or a thumbnail. */
export const CheckMatchSchema = z.lazy(() =>
  z.looseObject({
    itemId: z.string(),
    itemType: ContentTypeSchema,
    /** How many files the item has now: a carousel's images (1 for a video). */
    itemFileCount: z.number().int(),
    role: z.enum(['file', 'image', 'thumbnail']),
    /** The carousel image's file record (role image). */
    fileId: z.string().optional(),
    sortOrder: z.number().int().optional(),
    fileName: z.string().optional(),
  }),
);
export type CheckMatch = z.infer<typeof CheckMatchSchema>;

export const CheckResponseSchema = z.lazy(() =>
  z.looseObject({
    files: z.array(z.looseObject({ sha256: z.string(), size: z.number(), matches: z.array(CheckMatchSchema) })),
  }),
);
export type CheckResponse = z.infer<typeof CheckResponseSchema>;

export const ErrorDetailSchema = z.lazy(() => z.looseObject({ path: z.string().optional(), message: z.string() }));

export const ErrorBodySchema = z.lazy(() =>
  z.looseObject({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      details: z.array(z.unknown()).optional(),
    }),
  }),
);
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** POST /api/v1/upload/parts (an extension, docs/api.md "Multipart uploads"). */
export const PartsResponseSchema = z.lazy(() =>
  z.looseObject({
    partSize: z.number().int().positive(),
    partCount: z.number().int().positive(),
    parts: z.array(
      z.looseObject({ partNumber: z.number().int(), url: z.string().url(), headers: z.record(z.string(), z.string()) }),
    ),
    uploaded: z.array(z.looseObject({ partNumber: z.number().int(), size: z.number().int(), etag: z.string() })),
  }),
);
export type PartsResponse = z.infer<typeof PartsResponseSchema>;

/** POST /api/v1/upload/abort (an extension): `aborted` false when the upload was already closed. */
export const AbortUploadResponseSchema = z.lazy(() => z.looseObject({ key: z.string(), aborted: z.boolean() }));
export type AbortUploadResponse = z.infer<typeof AbortUploadResponseSchema>;
