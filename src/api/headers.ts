// Response headers of our own server that are not in the service specification (extensions,
// docs/api.md): named once here for the server that sends them and the client that reads them.

/** The brand of the key a request was made with, URI-encoded (a brand name may be any text). */
export const BRAND_HEADER = 'content-library-brand';
