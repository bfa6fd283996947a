// Wire formats of the Content Library Service (docs/api.md), shared by the client and the
// embedded server. Requests are strict (an unknown field is a 400); responses are loose, because
// a remote service may send more fields than these.
import * as z from 'zod';
import { LIST_LIMITS, METADATA_LIMITS, TYPE_RULES } from '../rules/rules.js';
import { ContentTypeSchema, StatusSchema } from './response-schemas.js';
import { SCOPES } from './scopes.js';
import { BATCH_ID_PATTERN } from './headers.js';
import {
  MULTI_LINE_RULE,
  SINGLE_LINE_RULE,
  VISIBLE_RULE,
  badStringIn,
  hasVisible,
  isMultiLine,
  isSingleLine,
} from './text-rules.js';

// Responses live in ./response-schemas.ts, which the client imports alone: a command builds
// only the schemas of the answers it reads (bench/notes.md). This module is the whole set.
export * from './response-schemas.js';

const fileSize = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const nonBlank = z.string().trim().min(1, 'must not be empty');

export { CONTROL_CHARACTERS } from './text-rules.js';

/** One line of text: no control characters, direction overrides or lone surrogates. */
const singleLine = <S extends z.ZodString>(s: S) => s.refine(isSingleLine, SINGLE_LINE_RULE);
/** Text that may span lines: tab and newline allowed, other controls not. */
const multiLine = <S extends z.ZodString>(s: S) => s.refine(isMultiLine, MULTI_LINE_RULE);
const noControls = () => singleLine(nonBlank);
const fileName = noControls();

/** A SHA-256 in hex (either case on the wire, lower case from here on). */
export const Sha256Schema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 in hex (64 characters 0-9, a-f)')
  .transform((hex) => hex.toLowerCase());

// ---- Requests ----------------------------------------------------------------------------

export const PresignRequestSchema = z.strictObject({
  fileName,
  contentType: noControls(),
  fileSize,
  type: ContentTypeSchema.optional(),
  thumbnail: z.boolean().optional(),
  /** An extension (docs/api.md): the file's SHA-256, which the store then verifies. */
  sha256: Sha256Schema.optional(),
  /** An extension (docs/api.md "Multipart uploads"): the client can send parts; the service may offer them. */
  multipart: z.boolean().optional(),
});
export type PresignRequest = z.infer<typeof PresignRequestSchema>;

export const CompleteRequestSchema = z.strictObject({
  key: noControls(),
  fileName,
  contentType: noControls(),
  fileSize,
  type: ContentTypeSchema,
  durationSeconds: z.number().positive().finite().optional(),
  contentItemId: z.uuid().optional(),
  /**
   * An extension (docs/api.md "Checksums"): the file's SHA-256 declared at complete instead of at
   * presign, checked exactly as one declared there; a client hashes a large file while its parts
   * are sent. One declared at presign as well must be the same.
   */
  sha256: Sha256Schema.optional(),
  /** An extension: a multipart upload's parts and the ETags their PUTs answered. */
  parts: z
    .array(z.strictObject({ partNumber: z.number().int().min(1), etag: z.string() }))
    .max(10_000)
    .optional(),
});
export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;

/** An extension (docs/api.md "Multipart uploads"): part URLs for up to 100 parts, and the parts received. */
export const PartsRequestSchema = z.strictObject({
  key: nonBlank,
  partNumbers: z.array(z.number().int().min(1)).max(100).default([]),
});
export type PartsRequest = z.input<typeof PartsRequestSchema>;

/**
 * An extension (docs/api.md "Multipart uploads"): POST /api/v1/upload/abort closes one of the
 * caller's open uploads now and frees what it holds (a multipart upload's parts, a staging
 * object): the client's file changed, or it gives the upload up. Aborting a closed upload is fine.
 */
export const AbortUploadRequestSchema = z.strictObject({ key: nonBlank });
export type AbortUploadRequest = z.infer<typeof AbortUploadRequestSchema>;

// ---- Carousel images (an extension, docs/api.md): reorder, replace; remove has no body.

/** PUT /api/v1/content/:id/order: every image's file id once, in the new order. */
export const ReorderRequestSchema = z.strictObject({
  fileIds: z
    .array(z.uuid())
    .min(1, 'list every image of the carousel')
    .max(TYPE_RULES.carousel.maxFiles, `a carousel has at most ${TYPE_RULES.carousel.maxFiles} images`)
    .refine((ids) => new Set(ids).size === ids.length, 'each image once: a file id is given twice'),
});
export type ReorderRequest = z.infer<typeof ReorderRequestSchema>;

/**
 * PUT /api/v1/content/:id/files/:fileId: the upload (presigned and PUT as a carousel image) to
 * complete into that image's place. What complete takes, but the type and the item, which the
 * path gives.
 */
export const ReplaceImageRequestSchema = CompleteRequestSchema.omit({
  type: true,
  contentItemId: true,
  durationSeconds: true,
  sha256: true,
});
export type ReplaceImageRequest = z.infer<typeof ReplaceImageRequestSchema>;

/**
 * Free-form per-platform metadata keyed by platform name: each platform holds an object. Any
 * string in it, key or value, follows the multi-line text rule.
 */
export const PlatformSettingsSchema = z
  .record(z.string().min(1), z.record(z.string(), z.unknown()))
  .superRefine((value, ctx) => {
    const bad = badStringIn(value);
    if (bad) ctx.addIssue({ code: 'custom', path: bad, message: MULTI_LINE_RULE });
  });
export type PlatformSettings = z.infer<typeof PlatformSettingsSchema>;

export const HashtagsSchema = z
  .array(singleLine(z.string().trim().min(1, 'a hashtag must not be empty').max(METADATA_LIMITS.hashtagMaxChars)))
  .max(METADATA_LIMITS.hashtagsMax);

export const PatchRequestSchema = z
  .strictObject({
    title: singleLine(nonBlank.max(METADATA_LIMITS.titleMaxChars)).refine(hasVisible, VISIBLE_RULE).optional(),
    description: multiLine(z.string().max(METADATA_LIMITS.descriptionMaxChars)).optional(),
    hashtags: HashtagsSchema.optional(),
    status: StatusSchema.optional(),
    platformSettings: PlatformSettingsSchema.refine(
      (v) => Buffer.byteLength(JSON.stringify(v)) <= METADATA_LIMITS.platformSettingsMaxBytes,
      `platformSettings must be at most ${METADATA_LIMITS.platformSettingsMaxBytes} bytes of JSON`,
    ).optional(),
    thumbnailKey: noControls().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');
export type PatchRequest = z.infer<typeof PatchRequestSchema>;

/**
 * An item's metadata besides its files: what PATCH changes and an upload sets (from flags,
 * sidecars or a manifest). The one definition, for the client, the upload and the server.
 */
export type ItemMetadata = Omit<PatchRequest, 'thumbnailKey'>;

/**
 * Query strings arrive as text: a whole number written in decimal digits, nothing else, up to
 * Number.MAX_SAFE_INTEGER (any offset the spec allows; past the end is an empty page).
 */
const queryInt = (name: string) =>
  z
    .string()
    .regex(/^\d{1,20}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine(Number.isSafeInteger, `${name} must be a whole number at most ${Number.MAX_SAFE_INTEGER}`);

/** The list's sort keys (an extension); the spec's order is `createdAt` descending. */
export const LIST_SORTS = ['createdAt', 'updatedAt', 'title'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

const queryHashtag = singleLine(nonBlank.max(101));
/** An item id as the list's `id` filter takes it: a UUID, either case. */
const queryItemId = z
  .string()
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    'id must be an item id (a UUID, as the list and GET answer it)',
  );
const queryTime = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z` });
/** A non-negative decimal number as query text (`12`, `7.5`). */
const queryNumber = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, `${name} must be a number of seconds, e.g. 30 or 7.5`)
    .transform(Number);

/** A page's size as query text: 1 to LIST_LIMITS.maxLimit (the list's and the audit log's alike). */
const pageLimit = () =>
  queryInt('limit').pipe(
    z
      .number()
      .min(1, 'limit must be at least 1')
      .max(LIST_LIMITS.maxLimit, `limit must be at most ${LIST_LIMITS.maxLimit}`),
  );

export const ListQuerySchema = z.strictObject({
  status: StatusSchema.optional(),
  type: ContentTypeSchema.optional(),
  search: singleLine(z.string().max(METADATA_LIMITS.titleMaxChars)).optional(),
  // Extension (docs/api.md): only items whose id starts with these characters (a short id).
  idPrefix: z
    .string()
    .regex(/^[0-9a-fA-F-]{1,36}$/, 'idPrefix must be the start of an id: hexadecimal digits and dashes')
    .optional(),
  // Extension (docs/api.md): only the items with these ids (`id=a&id=b`, at most a page's
  // worth): what a re-run checks of the items it made earlier, in one request per 100.
  id: z
    .union([queryItemId, z.array(queryItemId).max(LIST_LIMITS.maxLimit, `at most ${LIST_LIMITS.maxLimit} ids`)])
    .transform((ids) => (Array.isArray(ids) ? ids : [ids]))
    .optional(),
  limit: pageLimit().optional(),
  offset: queryInt('offset').optional(),
  // ---- Search extension (docs/api.md "Search, sort and cursor paging"): none of these is in
  // the service specification; a client that never sends them sees the spec's list unchanged.
  /** One or several (`hashtag=a&hashtag=b`): items carrying every one; case-insensitive, a leading `#` ignored. */
  hashtag: z
    .union([queryHashtag, z.array(queryHashtag).max(20, 'at most 20 hashtags')])
    .transform((h) => (Array.isArray(h) ? h : [h]))
    .optional(),
  /** Time ranges: `…After` is inclusive (≥), `…Before` exclusive (<). */
  createdAfter: queryTime('createdAfter').optional(),
  createdBefore: queryTime('createdBefore').optional(),
  updatedAfter: queryTime('updatedAfter').optional(),
  updatedBefore: queryTime('updatedBefore').optional(),
  /** Who made the item / who changed it last: a key id or a key's name (exact). */
  createdBy: singleLine(nonBlank.max(100)).optional(),
  updatedBy: singleLine(nonBlank.max(100)).optional(),
  /** Duration range in seconds, inclusive (videos; carousels have none and never match). */
  minDuration: queryNumber('minDuration').optional(),
  maxDuration: queryNumber('maxDuration').optional(),
  /** Free text over title, description and hashtags, best match first unless `sort` is given. */
  q: singleLine(nonBlank.max(500)).optional(),
  sort: z.enum(LIST_SORTS).optional(),
  order: z.enum(['asc', 'desc']).optional(),
  /** The `nextCursor` of the previous page (keyset paging); not together with a non-zero `offset`. */
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,2000}$/, 'cursor must be a nextCursor from a previous page')
    .optional(),
});
export type ListQuery = z.input<typeof ListQuerySchema>;

// ---- Extensions: keys over the API, and the audit log -------------------------------------

/** The longest a key made over the API may live: ten years. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

export const KeyCreateRequestSchema = z.strictObject({
  name: singleLine(nonBlank.max(100)).refine(hasVisible, VISIBLE_RULE).optional(),
  scopes: z.array(z.enum(SCOPES)).min(1, `give at least one scope: ${SCOPES.join(', ')}`),
  expiresInSeconds: z.number().int().positive().max(MAX_KEY_LIFETIME_SECONDS).optional(),
});
export type KeyCreateRequest = z.infer<typeof KeyCreateRequestSchema>;

export const AuditQuerySchema = z.strictObject({
  itemId: singleLine(z.string().min(1).max(100)).optional(),
  keyId: singleLine(z.string().min(1).max(100)).optional(),
  since: z.iso
    .datetime({ offset: true, message: 'since must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z' })
    .optional(),
  before: queryInt('before').optional(),
  /** Extension: only the entries of one bulk change (the batch id its requests carried, BATCH_HEADER). */
  batchId: z.string().regex(BATCH_ID_PATTERN, 'batchId must be a batch id from contentlib log').optional(),
  limit: pageLimit().optional(),
});
export type AuditQuery = z.input<typeof AuditQuerySchema>;
/** Files per "do you already have these?" request (an extension, docs/api.md). */
export const CHECK_MAX_FILES = 500;

export const CheckRequestSchema = z.strictObject({
  files: z
    .array(z.strictObject({ sha256: Sha256Schema, size: fileSize }))
    .min(1, 'send at least one file')
    .max(CHECK_MAX_FILES, `at most ${CHECK_MAX_FILES} files per request; send the rest in another`),
});
export type CheckRequest = z.input<typeof CheckRequestSchema>;
