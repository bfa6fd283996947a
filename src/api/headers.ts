// Response headers of our own server that are not in the service specification (extensions,
// docs/api.md): named once here for the server that sends them and the client that reads them.

/** The brand of the key a request was made with, URI-encoded (a brand name may be any text). */
export const BRAND_HEADER = 'content-library-brand';

/**
 * Request header (an extension): the id of a bulk change (`edit --where`, `rm --where`, an undo)
 * that this PATCH, DELETE or carousel change belongs to. The server records it as the audit
 * entry's `batchId`, so the change can be listed and undone as one (GET /api/v1/audit?batchId=).
 * A request without it is a change of its own, as in the spec.
 */
export const BATCH_HEADER = 'content-library-batch';
/** A batch id: made by the client (a UUID, or any 8–64 of these characters). */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
