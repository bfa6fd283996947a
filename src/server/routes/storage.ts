// The object storage side when this server is the store (disk): PUT {presignedUrl} (docs/api.md),
// which writes an upload's staging object only, and the signed GET (and HEAD, and Range) of
// fileUrl and thumbnailUrl.
// Registered in its own scope whose only body parser hands the raw request over untouched, so a
// 1 GiB body streams straight to a temp file and is never buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Services } from '../context.js';
import { HttpError, isDiskFull, parserRefused, sendError, storageError } from '../errors.js';
import { planFileAnswer } from '../file-answer.js';
import { type PutGate, SlowBodyError, pacedBody } from '../put-gate.js';
import { DEFAULT_PUT_LIMITS } from '../limits.js';
import { RETRY_AFTER_SECONDS, asUnavailable } from '../unavailable.js';
import { verify } from '../signing.js';
import { DigestMismatchError, type DiskStorage, LengthMismatchError } from '../storage/disk.js';
import { fileIdOfStagingKey } from '../storage/interface.js';

interface SignedRequest {
  key: string;
  expires: number;
  signature: string;
}

/** Key and signature from the raw URL (each path segment percent-decoded), or null when malformed. */
export function parseStorageUrl(rawUrl: string): SignedRequest | null {
  const url = new URL(rawUrl, 'http://storage.invalid');
  if (!url.pathname.startsWith('/storage/')) return null;
  let key: string;
  try {
    key = url.pathname.slice('/storage/'.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
  const expiresText = url.searchParams.get('expires') ?? '';
  const expires = /^\d{1,15}$/.test(expiresText) ? Number(expiresText) : NaN;
  const signature = url.searchParams.get('signature') ?? '';
  if (!key || !Number.isSafeInteger(expires) || !signature) return null;
  return { key, expires, signature };
}

/** Rejections happen before the body is read: close the connection so the client sees the answer, not a reset. */
function reject(reply: FastifyReply, err: HttpError): FastifyReply {
  reply.header('Connection', 'close');
  return sendError(reply, err);
}

const CLOSED =
  'this upload is closed (already completed or attached, deleted, swept after expiry, or its API key was revoked or expired); nothing was stored — presign again';

export function registerStorage(app: FastifyInstance, s: Services, disk: DiskStorage, gate: PutGate): void {
  const putLimits = { ...DEFAULT_PUT_LIMITS, ...s.deps.putLimits };

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Any Content-Type (or none): leave the body in the socket for the handler to stream.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    scope.put('/storage/*', async (request, reply) => {
      const check = await checkPut(s, request);
      if (check instanceof HttpError) return reject(reply, check);
      const { key, fileId, length } = check;
      // A place among the PUTs in flight, or 503 before a file is opened (put-gate.ts).
      const place = gate.admit(check.keyId);
      if ('kind' in place) return reject(reply, busy(place.kind));
      reply.raw.once('close', () => place.release());
      const body: Readable = pacedBody(request.raw, putLimits);
      // Not request.raw.destroyed: a request whose body was read to the end is destroyed too.
      const gone = () => request.raw.socket.destroyed;
      let outcome: 'stored' | 'closed';
      try {
        outcome = await disk.receive(
          key,
          body,
          length,
          async () => {
            // Bytes after the body that the HTTP parser refused: the body ran past its Content-Length.
            if (parserRefused(request.raw.socket) || !(await s.repo.openForPut(fileId, s.deps.now().toISOString())))
              return false;
            await s.repo.markStored(check.uploadKey, s.deps.now().toISOString());
            return true;
          },
          check.sha256,
        );
      } catch (err) {
        if (err instanceof DigestMismatchError) {
          return reject(
            reply,
            storageError(
              'bad_digest',
              `${err.message}: the bytes changed on the way; nothing was stored — send the file again`,
            ),
          );
        }
        if (err instanceof LengthMismatchError) {
          return reject(
            reply,
            storageError(
              'content_length_mismatch',
              `${err.message}; nothing was stored — send exactly the signed number of bytes`,
            ),
          );
        }
        if (err instanceof SlowBodyError)
          return reject(
            reply,
            storageError('request_timeout', `${err.message}; nothing was stored — send the file again`),
          );
        if (isDiskFull(err))
          return reject(
            reply,
            storageError('insufficient_storage', 'the server has no disk space left; nothing was stored — try later'),
          );
        // The client went away mid-body: nothing was stored, and nobody is left to answer.
        if (gone()) return reply.hijack();
        // The disk failing (EIO, EMFILE…) is 503 unavailable, not a 500.
        throw asUnavailable('storage', err);
      }
      if (gone()) return reply.hijack();
      if (parserRefused(request.raw.socket))
        return reject(
          reply,
          storageError('content_length_mismatch', 'the body ran past its Content-Length; nothing was stored'),
        );
      if (outcome === 'closed') return reject(reply, storageError('upload_closed', CLOSED));
      return reply.code(200).header('ETag', `"${fileId}"`).send();
    });

    // GET and HEAD of a file URL: one handler, so HEAD answers exactly the headers GET would.
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/storage/*',
      handler: (request, reply) => getFile(s, disk, request, reply),
    });
  });
}

/**
 * A signed GET (or HEAD) of a stored file: the whole file, one range of it (so browsers seek in
 * a video), 304 or 416, as src/server/file-answer.ts decides from the open file's facts.
 */
async function getFile(s: Services, disk: DiskStorage, request: FastifyRequest, reply: FastifyReply) {
  const signed = parseStorageUrl(request.url);
  if (
    !signed ||
    !verify(s.deps.secret, { method: 'GET', key: signed.key, expires: signed.expires }, signed.signature)
  ) {
    return sendError(
      reply,
      storageError('signature_mismatch', 'the URL signature is not valid; get a fresh URL from the API'),
    );
  }
  if (signed.expires * 1000 < s.deps.now().getTime()) {
    return sendError(reply, storageError('expired', 'this URL has expired; fetch the item again for a fresh URL'));
  }
  const upload = await s.repo.getUpload(signed.key);
  const object = upload ? await disk.openRead(signed.key) : null;
  if (!upload || !object)
    return sendError(reply, storageError('not_found', 'no such object; it may have been deleted'));
  const answer = planFileAnswer(
    { ...object, contentType: upload.contentType, fileName: upload.fileName },
    {
      range: oneHeader(request.headers.range),
      ifRange: oneHeader(request.headers['if-range']),
      ifNoneMatch: oneHeader(request.headers['if-none-match']),
    },
  );
  reply.code(answer.status).headers(answer.headers);
  if (request.method === 'HEAD' || !('start' in answer)) {
    await object.close();
    return reply.send();
  }
  return reply.send(object.stream(answer.start, answer.end));
}

function oneHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A PUT the gate did not admit: try again shortly (503 with Retry-After, as S3's SlowDown). */
function busy(why: 'descriptors' | 'key'): HttpError {
  return storageError(
    'unavailable',
    why === 'key'
      ? 'too many uploads in flight for this API key; nothing was stored — send it again once one has finished'
      : 'the server takes no more uploads right now; nothing was stored — send it again in a few seconds',
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/** Everything the PUT must satisfy before a byte is read, in the order S3 checks it. */
async function checkPut(
  s: Services,
  request: FastifyRequest,
): Promise<
  | { key: string; fileId: string; uploadKey: string; keyId: string | null; length: number; sha256: string | null }
  | HttpError
> {
  if (request.headers.authorization !== undefined) {
    return storageError(
      'invalid_argument',
      'a presigned PUT must not carry an Authorization header (only one auth mechanism is allowed); drop the header',
    );
  }
  const signed = parseStorageUrl(request.url);
  const fileId = signed ? fileIdOfStagingKey(signed.key) : null;
  const upload = fileId ? await s.repo.getUploadByFileId(fileId) : null;
  const valid =
    signed &&
    upload &&
    verify(
      s.deps.secret,
      {
        method: 'PUT',
        key: signed.key,
        expires: signed.expires,
        contentType: upload.contentType,
        contentLength: upload.fileSize,
      },
      signed.signature,
    );
  if (!signed || !fileId || !upload || !valid) {
    return storageError('signature_mismatch', 'the URL signature does not match (tampered or unknown); presign again');
  }
  if (signed.expires * 1000 <= s.deps.now().getTime()) {
    return storageError('expired', 'the presigned URL has expired (it lives 1 hour); presign again');
  }
  if (!(await s.repo.openForPut(fileId, s.deps.now().toISOString()))) return storageError('upload_closed', CLOSED);
  const lengthHeader = request.headers['content-length'];
  if (lengthHeader === undefined) {
    return storageError(
      'missing_content_length',
      `send Content-Length: ${upload.fileSize} (chunked uploads are not accepted)`,
    );
  }
  const contentType = request.headers['content-type'] ?? '';
  if (contentType !== upload.contentType) {
    return storageError(
      'content_type_mismatch',
      `Content-Type "${contentType}" differs from "${upload.contentType}" given at presign; send the same value`,
    );
  }
  if (Number(lengthHeader) !== upload.fileSize) {
    return storageError(
      'content_length_mismatch',
      `Content-Length ${lengthHeader} differs from fileSize ${upload.fileSize} given at presign; send the whole file`,
    );
  }
  return {
    key: signed.key,
    fileId,
    uploadKey: upload.key,
    keyId: upload.keyId,
    length: upload.fileSize,
    sha256: upload.sha256,
  };
}
