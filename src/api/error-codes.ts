// The service's error codes and their HTTP statuses (docs/api.md, Errors). The server answers
// with them; the client reads them back into typed errors.

export const API_ERRORS = {
  invalid_request: 400,
  invalid_upload: 400,
  /** The stored bytes' SHA-256 differs from the one declared at presign: changed on the way. */
  bad_digest: 400,
  unauthorized: 401,
  /** The key is valid but lacks the scope the endpoint needs (details name it). */
  forbidden: 403,
  quota_exceeded: 403,
  not_found: 404,
  not_a_carousel: 409,
  carousel_full: 409,
  /** Removing the image would leave a carousel below its minimum of 2 (an extension, docs/api.md). */
  carousel_minimum: 409,
  /** A reorder that is not a permutation of the carousel's images: they changed meanwhile (an extension). */
  files_changed: 409,
  /** Revoking this key would leave its brand without a usable keys:admin key. */
  last_admin_key: 409,
  file_too_large: 413,
  unsupported_media_type: 415,
  content_mismatch: 415,
  invalid_duration: 422,
  rate_limited: 429,
  internal: 500,
  /**
   * A dependency (the database, the file storage) cannot be used now, not ready (GET /readyz
   * names the failing part), or shutting down; with Retry-After.
   */
  unavailable: 503,
  /** The server's disk (or database) is full: ENOSPC, EDQUOT, SQLITE_FULL. DELETE still works. */
  insufficient_storage: 507,
} as const;
export type ApiErrorCode = keyof typeof API_ERRORS;

/** What storage answers (docs/api.md, PUT {presignedUrl}): 403 with one of these reasons, 411 without a length, 400/404 below. */
export const STORAGE_ERRORS = {
  signature_mismatch: 403,
  expired: 403,
  content_type_mismatch: 403,
  content_length_mismatch: 403,
  missing_content_length: 411,
  /** The PUT also carried an Authorization header: S3 refuses two auth mechanisms (InvalidArgument). */
  invalid_argument: 400,
  /** The body's SHA-256 differs from the one declared at presign (S3's BadDigest): nothing was stored. */
  bad_digest: 400,
  /** A signed GET of an object that no longer exists (S3's NoSuchKey). */
  not_found: 404,
  /** The upload behind a presigned PUT was completed, attached, deleted or swept, or its API key revoked. */
  upload_closed: 403,
  /** The body came too slowly (under the server's minimum rate) or for too long: nothing was stored. */
  request_timeout: 408,
  /** The server takes no more PUTs now (too many in flight for the key, or its file descriptors). */
  unavailable: 503,
  /** The server's disk is full: nothing was stored. */
  insufficient_storage: 507,
} as const;
export type StorageErrorCode = keyof typeof STORAGE_ERRORS;
