// The object storage side: PUT {presignedUrl} (spec 4.2) and the signed GET of fileUrl and
// thumbnailUrl. Registered in its own scope whose only body parser hands the raw request over
// untouched, so a 1 GiB body streams straight to a temp file and is never buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Transform } from 'node:stream';
import type { Services } from '../context.js';
import { HttpError, sendError, storageError } from '../errors.js';
import { LengthMismatchError } from '../storage.js';
import { verify } from '../signing.js';

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

export function registerStorage(app: FastifyInstance, s: Services): void {
  let faultsLeft = s.deps.faults?.count ?? 0;

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Any Content-Type (or none): leave the body in the socket for the handler to stream.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    scope.put('/storage/*', async (request, reply) => {
      const check = await checkPut(s, request);
      if (check instanceof HttpError) return reject(reply, check);
      const { key, length } = check;
      let body: NodeJS.ReadableStream = request.raw;
      if (faultsLeft > 0 && s.deps.faults) {
        faultsLeft--;
        body = request.raw.pipe(dropAfter(s.deps.faults.dropPutAfterBytes, () => request.raw.socket.destroy()));
      }
      try {
        await s.deps.storage.write(key, body as never, length);
      } catch (err) {
        if (err instanceof LengthMismatchError) {
          return reject(
            reply,
            storageError(
              'content_length_mismatch',
              `${err.message}; nothing was stored — send exactly the signed number of bytes`,
            ),
          );
        }
        // The client went away mid-body: nothing was stored, and nobody is left to answer.
        if (request.raw.destroyed || request.raw.aborted || request.raw.socket.destroyed) return reply.hijack();
        throw err;
      }
      await s.repo.markStored(key, s.deps.now().toISOString());
      return reply
        .code(200)
        .header('ETag', `"${key.split('/')[1] ?? ''}"`)
        .send();
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
      const size = upload ? await s.deps.storage.size(signed.key) : null;
      if (!upload || size === null)
        return sendError(reply, storageError('not_found', 'no such object; it may have been deleted'));
      reply.header('Content-Type', upload.contentType).header('Content-Length', String(size));
      return reply.send(s.deps.storage.read(signed.key));
    });
  });
}

/** Everything the PUT must satisfy before a byte is read, in the order S3 checks it. */
async function checkPut(s: Services, request: FastifyRequest): Promise<{ key: string; length: number } | HttpError> {
  if (request.headers.authorization !== undefined) {
    return storageError(
      'invalid_argument',
      'a presigned PUT must not carry an Authorization header (only one auth mechanism is allowed); drop the header',
    );
  }
  const signed = parseStorageUrl(request.url);
  const upload = signed ? await s.repo.getUpload(signed.key) : null;
  const valid =
    signed &&
    upload &&
    !upload.completedAt &&
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
  if (!signed || !upload || !valid) {
    return storageError(
      'signature_mismatch',
      'the URL signature does not match (tampered, or for an upload that was already completed); presign again',
    );
  }
  if (signed.expires * 1000 <= s.deps.now().getTime()) {
    return storageError('expired', 'the presigned URL has expired (it lives 1 hour); presign again');
  }
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
  return { key: signed.key, length: upload.fileSize };
}

/** Test fault: passes bytes through until `limit`, then kills the connection. */
function dropAfter(limit: number, kill: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen >= limit) {
        kill();
        cb(new Error('fault injected: connection dropped'));
        return;
      }
      cb(null, chunk);
    },
  });
}
