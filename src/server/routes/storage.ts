// The object storage side when this server is the store (disk): PUT {presignedUrl} (docs/api.md),
// which writes an upload's staging object only, and the signed GET of fileUrl and thumbnailUrl.
// Registered in its own scope whose only body parser hands the raw request over untouched, so a
// 1 GiB body streams straight to a temp file and is never buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../context.js';
import { HttpError, isDiskFull, parserRefused, sendError, storageError } from '../errors.js';
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
  'this upload is closed (already completed or attached, deleted, swept after expiry, or its API key was revoked); nothing was stored — presign again';

export function registerStorage(app: FastifyInstance, s: Services, disk: DiskStorage): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Any Content-Type (or none): leave the body in the socket for the handler to stream.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    scope.put('/storage/*', async (request, reply) => {
      const check = await checkPut(s, request);
      if (check instanceof HttpError) return reject(reply, check);
      const { key, fileId, length } = check;
      // Not request.raw.destroyed: a request whose body was read to the end is destroyed too.
      const gone = () => request.raw.socket.destroyed;
      let outcome: 'stored' | 'closed';
      try {
        outcome = await disk.receive(
          key,
          request.raw,
          length,
          async () => {
            // Bytes after the body that the HTTP parser refused: the body ran past its Content-Length.
            if (parserRefused(request.raw.socket) || !(await s.repo.openForPut(fileId))) return false;
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
        if (isDiskFull(err))
          return reject(
            reply,
            storageError('insufficient_storage', 'the server has no disk space left; nothing was stored — try later'),
          );
        // The client went away mid-body: nothing was stored, and nobody is left to answer.
        if (gone()) return reply.hijack();
        throw err;
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

    scope.get('/storage/*', async (request, reply) => {
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
      reply.header('Content-Type', upload.contentType).header('Content-Length', String(object.size));
      return reply.send(object.stream);
    });
  });
}

/** Everything the PUT must satisfy before a byte is read, in the order S3 checks it. */
async function checkPut(
  s: Services,
  request: FastifyRequest,
): Promise<{ key: string; fileId: string; uploadKey: string; length: number; sha256: string | null } | HttpError> {
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
  if (!(await s.repo.openForPut(fileId))) return storageError('upload_closed', CLOSED);
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
  return { key: signed.key, fileId, uploadKey: upload.key, length: upload.fileSize, sha256: upload.sha256 };
}
