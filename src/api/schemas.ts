// Wire formats of the Content Library Service (docs/api.md), shared by the client and the
// embedded server. Requests are strict (an unknown field is a 400); responses are loose, because
// a remote service may send more fields than these.
import * as z from 'zod';
import { LIST_LIMITS, METADATA_LIMITS } from '../rules/rules.js';
import { ContentTypeSchema, StatusSchema } from './response-schemas.js';
import { SCOPES } from './scopes.js';

// Responses live in ./response-schemas.ts, which the client imports alone: a command builds
// only the schemas of the answers it reads (bench/notes.md). This module is the whole set.
export * from './response-schemas.js';

const fileSize = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const nonBlank = z.string().trim().min(1, 'must not be empty');

/** C0 controls, DEL, and the bidirectional embeddings, overrides and isolates that can disguise a name. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
const noControls = (what: string) =>
  nonBlank.refine(
    (text) => !CONTROL_CHARACTERS.test(text),
    `${what} must not contain control characters (U+0000–U+001F, U+007F, U+202A–U+202E, U+2066–U+2069)`,
  );
const fileName = noControls('fileName');

// ---- Requests ----------------------------------------------------------------------------

export const PresignRequestSchema = z.strictObject({
  fileName,
  contentType: nonBlank,
  fileSize,
  type: ContentTypeSchema.optional(),
  thumbnail: z.boolean().optional(),
  /** An extension (docs/api.md "Multipart uploads"): the client can send parts; the service may offer them. */
  multipart: z.boolean().optional(),
});
export type PresignRequest = z.infer<typeof PresignRequestSchema>;

export const CompleteRequestSchema = z.strictObject({
  key: nonBlank,
  fileName,
  contentType: nonBlank,
  fileSize,
  type: ContentTypeSchema,
  durationSeconds: z.number().positive().finite().optional(),
  contentItemId: z.uuid().optional(),
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

/** Free-form per-platform metadata keyed by platform name: each platform holds an object. */
export const PlatformSettingsSchema = z.record(z.string().min(1), z.record(z.string(), z.unknown()));
export type PlatformSettings = z.infer<typeof PlatformSettingsSchema>;

export const HashtagsSchema = z
  .array(z.string().trim().min(1, 'a hashtag must not be empty').max(METADATA_LIMITS.hashtagMaxChars))
  .max(METADATA_LIMITS.hashtagsMax);

export const PatchRequestSchema = z
  .strictObject({
    title: noControls('title').max(METADATA_LIMITS.titleMaxChars).optional(),
    description: z.string().max(METADATA_LIMITS.descriptionMaxChars).optional(),
    hashtags: HashtagsSchema.optional(),
    status: StatusSchema.optional(),
    platformSettings: PlatformSettingsSchema.refine(
      (v) => Buffer.byteLength(JSON.stringify(v)) <= METADATA_LIMITS.platformSettingsMaxBytes,
      `platformSettings must be at most ${METADATA_LIMITS.platformSettingsMaxBytes} bytes of JSON`,
    ).optional(),
    thumbnailKey: nonBlank.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');
export type PatchRequest = z.infer<typeof PatchRequestSchema>;

/**
 * An item's metadata besides its files: what PATCH changes and an upload sets (from flags,
 * sidecars or a manifest). The one definition, for the client, the upload and the server.
 */
export type ItemMetadata = Omit<PatchRequest, 'thumbnailKey'>;

/** Query strings arrive as text: a whole number written in decimal digits, nothing else. */
const queryInt = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number);

export const ListQuerySchema = z.strictObject({
  status: StatusSchema.optional(),
  type: ContentTypeSchema.optional(),
  search: z.string().max(METADATA_LIMITS.titleMaxChars).optional(),
  limit: queryInt('limit')
    .pipe(
      z
        .number()
        .min(1, 'limit must be at least 1')
        .max(LIST_LIMITS.maxLimit, `limit must be at most ${LIST_LIMITS.maxLimit}`),
    )
    .optional(),
  offset: queryInt('offset').optional(),
});
export type ListQuery = z.input<typeof ListQuerySchema>;

// ---- Extensions: keys over the API, and the audit log -------------------------------------

/** The longest a key made over the API may live: ten years. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

export const KeyCreateRequestSchema = z.strictObject({
  name: noControls('name').max(100).optional(),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'give at least one scope: content:read, content:write, content:delete or keys:admin'),
  expiresInSeconds: z.number().int().positive().max(MAX_KEY_LIFETIME_SECONDS).optional(),
});
export type KeyCreateRequest = z.infer<typeof KeyCreateRequestSchema>;

export const AuditQuerySchema = z.strictObject({
  itemId: z.string().min(1).max(100).optional(),
  keyId: z.string().min(1).max(100).optional(),
  since: z.iso
    .datetime({ offset: true, message: 'since must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z' })
    .optional(),
  before: queryInt('before').optional(),
  limit: queryInt('limit')
    .pipe(
      z
        .number()
        .min(1, 'limit must be at least 1')
        .max(LIST_LIMITS.maxLimit, `limit must be at most ${LIST_LIMITS.maxLimit}`),
    )
    .optional(),
});
export type AuditQuery = z.input<typeof AuditQuerySchema>;
