// Where the bytes live, behind one interface: local disk with HMAC-signed URLs (disk.ts), or an
// S3-compatible object store (s3.ts). A presigned PUT only ever writes a staging object
// (`staging/<fileId>`); complete (or PATCH for a thumbnail) checks those bytes with ranged reads
// and promotes them to the item's final key, which no URL can write. `etag` pins one version of
// an object, so a late PUT that replaces the staging object between the check and the promote
// makes the promote fail instead of promoting unchecked bytes.

/** The prefix of every staging key. Final keys start with a user id (a UUID), so never with this. */
export const STAGING_PREFIX = 'staging/';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The staging key of an upload: one per presign, so a URL can write nothing but its own upload. */
export function stagingKeyOf(fileId: string): string {
  if (!UUID.test(fileId)) throw new Error(`a staging key needs a lower-case UUID file id, not "${fileId}"`);
  return `${STAGING_PREFIX}${fileId}`;
}

/** The file id of a staging key, or null when `key` is not one. */
export function fileIdOfStagingKey(key: string): string | null {
  if (!key.startsWith(STAGING_PREFIX)) return null;
  const id = key.slice(STAGING_PREFIX.length);
  return UUID.test(id) ? id : null;
}

export interface PutToPresign {
  /** A staging key (stagingKeyOf). */
  key: string;
  /** The exact Content-Type the PUT must carry (signed). */
  contentType: string;
  /** The exact number of bytes the PUT must carry (signed). */
  contentLength: number;
  /** The body's SHA-256 (hex) when the client declared one: the store refuses a body that differs. */
  sha256?: string;
  expiresAt: Date;
}

export interface PresignedPut {
  url: string;
  /** Headers the client must send with the PUT, with exactly these values. */
  headers: Record<string, string>;
}

export interface GetToPresign {
  key: string;
  expiresAt: Date;
}

export interface ObjectHead {
  size: number;
  /** As stored with the object; null when the store keeps none (disk). */
  contentType: string | null;
  /** Changes whenever the object is written again. */
  etag: string;
  lastModified: Date;
  /** The SHA-256 (hex) the store verified the object's bytes against, when it keeps one (S3's ChecksumSHA256). */
  sha256?: string;
}

/** An ETag without its quotes or a weak `W/` mark: stores differ in how they write one (RGW's copy answers without quotes, its HEAD with). */
export function bareEtag(etag: string): string {
  return etag.replace(/^W\//, '').replace(/"/g, '');
}

/** Whether two ETags name the same version, however each store quoted it. */
export function sameEtag(a: string, b: string): boolean {
  return bareEtag(a) === bareEtag(b);
}

/** The version of a staging object that was checked, as promote must prove it moved. */
export interface CheckedVersion {
  /** Its etag when it was read (head). */
  etag: string;
  size?: number;
  /** Its SHA-256 (hex) as the check verified it: what proves a copy that got an etag of its own. */
  sha256?: string;
}

/** One part a store holds for a multipart upload. */
export interface StoredPart {
  partNumber: number;
  size: number;
  /** Changes whenever the part is written again (a retried part); as the part's PUT answered it, without quotes. */
  etag: string;
}

/** A multipart upload the store holds open (the sweeper's list). */
export interface OpenMultipart {
  /** The staging key the parts will be joined into (stagingKeyOf). */
  stagingKey: string;
  uploadId: string;
  /** When it was opened. */
  initiated: Date;
}

/**
 * A store's multipart uploads (issue 28, docs/api.md "Multipart uploads"): S3's CreateMultipartUpload,
 * UploadPart (presigned), ListParts, CompleteMultipartUpload, AbortMultipartUpload and
 * ListMultipartUploads, which the disk store (disk-parts.ts) imitates. The parts of an upload
 * are joined into its staging object, from where it is checked like a single PUT's file.
 */
export interface MultipartStore {
  /** Opens a multipart upload whose parts will be joined into `stagingKey`; returns its upload id. */
  create(stagingKey: string, contentType: string): Promise<string>;
  /** A URL that PUTs part `partNumber` of exactly `size` bytes, until `expiresAt`. */
  presignPart(p: {
    stagingKey: string;
    uploadId: string;
    partNumber: number;
    size: number;
    expiresAt: Date;
  }): Promise<PresignedPut>;
  /** The parts received so far, in part order. ObjectStateError('missing') when the upload is not open. */
  listParts(stagingKey: string, uploadId: string): Promise<StoredPart[]>;
  /**
   * Joins the parts, in order, into the staging object and closes the multipart upload. The
   * disk store hashes the parts as they land and returns the joined SHA-256 (hex); S3 does not.
   * ObjectStateError('changed') when a part is not the one named (sent again meanwhile),
   * 'missing' when the upload is not open.
   */
  complete(
    stagingKey: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
  ): Promise<{ sha256?: string }>;
  /** Frees the upload's parts; an upload already gone counts as aborted. */
  abort(stagingKey: string, uploadId: string): Promise<void>;
  /** Every multipart upload open in the store under the staging prefix. */
  listUploads(): Promise<OpenMultipart[]>;
}

export interface Storage {
  /**
   * Multipart uploads, when the store has them (both built-in stores do). The server reaches
   * them through `AppDeps.multipart`, guarded like the rest of the store (src/server/index.ts).
   */
  readonly multipart?: MultipartStore;
  /**
   * The SHA-256 the store computed of version `etag` of `key` as its bytes arrived, when it has
   * it: the disk store hashes every PUT body it receives and keeps the digest in memory, so
   * complete need not read the object back (stored-file.ts); undefined after a restart, for
   * another version, and on S3 (whose verified checksum is `ObjectHead.sha256`).
   */
  hashedOnArrival?(key: string, etag: string): string | undefined;
  presignPut(put: PutToPresign): Promise<PresignedPut>;
  presignGet(get: GetToPresign): Promise<string>;
  /** Size, type and version of an object, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  /**
   * Up to `length` bytes from `offset` (fewer at the end of the object, none past it). With
   * `etag`, throws ObjectStateError('changed') when the object is no longer that version.
   * Throws ObjectStateError('missing') when there is no object.
   */
  readRange(key: string, offset: number, length: number, etag?: string): Promise<Buffer>;
  /**
   * Moves a staging object to its final key, atomically as seen by readers of the final key
   * (a rename on disk; copy then delete on object storage). With `checked`, only that version
   * moves, proven by the store's identity of the final object or by its bytes, never by the
   * store's word that a conditional copy was honoured (ObjectStateError('changed') otherwise,
   * and no final object is left); a missing staging object is ObjectStateError('missing'). An
   * existing final object is replaced.
   */
  promote(stagingKey: string, finalKey: string, checked?: CheckedVersion): Promise<void>;
  /**
   * Writes a small object the server made itself (a poster or preview, src/server/previews/) at a
   * final key, whole, replacing any there. Never a client's bytes: those arrive by presigned PUT.
   */
  putObject(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Removes an object; a missing one counts as removed. */
  delete(key: string): Promise<void>;
  /**
   * Every staging key in the store. The sweeper deletes those that no open upload owns (its row
   * is gone, completed or attached): such an object can never be promoted, whatever its age.
   */
  listStaging(): Promise<string[]>;
  /** Throws when the store cannot be used right now (readiness). Cheap: no object is written. */
  check(): Promise<void>;
}

export type ObjectState = 'missing' | 'changed';

/** The object a call named is not there, or not the version the caller checked. */
export class ObjectStateError extends Error {
  constructor(
    readonly state: ObjectState,
    readonly key: string,
  ) {
    super(state === 'missing' ? `no object ${key}` : `object ${key} was written again meanwhile`);
    this.name = 'ObjectStateError';
  }
}

export function isObjectState(err: unknown, state: ObjectState): boolean {
  return err instanceof ObjectStateError && err.state === state;
}

/**
 * Every object an upload may have with staging → promote: its final object and its staging
 * object (a late PUT may have left one, or a complete that never committed may have promoted
 * it). What Repo.deleteItem / updateItem / abandonUploads queue for deletion.
 */
export function objectKeysOf(upload: { key: string; fileId: string }): string[] {
  return [upload.key, stagingKeyOf(upload.fileId)];
}
