// The service's error codes and their HTTP statuses (DESIGN.md section 2). The server answers
// with them; the client reads them back into typed errors.

export const API_ERRORS = {
  invalid_request: 400,
  invalid_upload: 400,
  unauthorized: 401,
  quota_exceeded: 403,
  not_found: 404,
  not_a_carousel: 409,
  carousel_full: 409,
  file_too_large: 413,
  unsupported_media_type: 415,
  content_mismatch: 415,
  invalid_duration: 422,
  rate_limited: 429,
  internal: 500,
  /** Not ready (GET /readyz names the failing part), or shutting down. */
  unavailable: 503,
} as const;
export type ApiErrorCode = keyof typeof API_ERRORS;

/** What storage answers (spec 4.2): 403 with one of these reasons, 411 without a length, 400/404 below. */
export const STORAGE_ERRORS = {
  signature_mismatch: 403,
  expired: 403,
  content_type_mismatch: 403,
  content_length_mismatch: 403,
  missing_content_length: 411,
  /** The PUT also carried an Authorization header: S3 refuses two auth mechanisms (InvalidArgument). */
  invalid_argument: 400,
  /** A signed GET of an object that no longer exists (S3's NoSuchKey). */
  not_found: 404,
} as const;
export type StorageErrorCode = keyof typeof STORAGE_ERRORS;
