// The object storage side when this server is the store (disk): PUT {presignedUrl} (docs/api.md),
// which writes an upload's staging object only, the part PUT of a multipart upload
// (/storage-parts/<fileId>/<n>, an extension), and the signed GET (and HEAD, and Range) of
// fileUrl and thumbnailUrl. Both PUTs go through one receiver (`receive` below): one set of
// refusals, one gate and pace (../put-gate.ts), one Retry-After, one error mapping, and the disk
// reached through the outage guard (`DiskReceiver`, guarded in ../index.ts).
// Registered in its own scope whose only body parser hands the raw request over untouched, so a
// 1 GiB body streams straight to a temp file and is never buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Services } from '../context.js';
import { HttpError, apiError, isDiskFull, parserRefused, sendError, storageError } from '../errors.js';
import { planFileAnswer } from '../file-answer.js';
import { type PutGate, SlowBodyError, pacedBody } from '../put-gate.js';
import { SERVER_SCAVENGE_BYTES, scavenger } from '../../heap/scavenge.js';
import { DEFAULT_PUT_LIMITS } from '../limits.js';
import { RETRY_AFTER_SECONDS } from '../unavailable.js';
import { verify } from '../signing.js';
import { partBytes, partRange } from '../../rules/parts.js';
import type { DiskReceiver } from '../context.js';
import { recordedPlan } from '../multipart.js';
import { PREVIEW_CONTENT_TYPE, PREVIEW_SUFFIX, sourceKeyOfPreview } from '../object-keys.js';
import { DigestMismatchError, type DiskStorage, LengthMismatchError } from '../storage/disk.js';
import { PART_CONTENT_TYPE, partKey } from '../storage/disk-parts.js';
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

/** A PUT whose checks passed: whose key sends it, and how its body is written. */
interface Admitted {
  keyId: string | null;
  /** What a refused body leaves, for the messages: "nothing was stored", "the part was not kept". */
  lost: string;
  /**
   * Writes the (paced) body; `stillOpen` says, once the bytes are on disk, whether they are kept.
   * The ETag to answer, or 'closed' when the upload closed meanwhile.
   */
  write(body: Readable, stillOpen: () => Promise<boolean>): Promise<{ etag: string } | 'closed'>;
}

export function registerStorage(
  app: FastifyInstance,
  s: Services,
  disk: DiskStorage,
  receiver: DiskReceiver,
  gate: PutGate,
  hookHeaders: () => Record<string, string>,
): void {
  const putLimits = { ...DEFAULT_PUT_LIMITS, ...s.deps.putLimits };
  // One count for every body this server receives: they share one heap (src/heap/scavenge.ts).
  const received = scavenger(SERVER_SCAVENGE_BYTES);

  /**
   * The one receiver of the disk store's PUTs, single and part: the same refusals, gate, pace,
   * Retry-After and error mapping for both. `check` says whether the PUT may send its body.
   */
  async function receive(
    request: FastifyRequest,
    reply: FastifyReply,
    check: () => Promise<Admitted | HttpError>,
  ): Promise<FastifyReply> {
    if (request.headers.authorization !== undefined)
      return reject(
        reply,
        storageError(
          'invalid_argument',
          'a presigned PUT must not carry an Authorization header (only one auth mechanism is allowed); drop the header',
        ),
      );
    const admitted = await check();
    if (admitted instanceof HttpError) return reject(reply, admitted);
    // A place among the PUTs in flight, or 503 before a file is opened (put-gate.ts).
    const place = gate.admit(admitted.keyId);
    if ('kind' in place) return reject(reply, busy(place.kind));
    reply.raw.once('close', () => place.release());
    const socket = request.raw.socket;
    // Not request.raw.destroyed: a request whose body was read to the end is destroyed too.
    const gone = () => socket.destroyed;
    let outcome: { etag: string } | 'closed';
    try {
      outcome = await admitted.write(pacedBody(request.raw, putLimits, received), async () => !parserRefused(socket));
    } catch (err) {
      const refusal = refusalOf(err, admitted.lost);
      if (refusal) return reject(reply, refusal);
      // The client went away mid-body: nothing was kept, and nobody is left to answer.
      if (gone()) return reply.hijack();
      // The disk failing (EIO, EMFILE…) came through the outage guard: 503 unavailable with
      // Retry-After (src/server/errors.ts), not a 500. The rest of the body is not read: the
      // connection closes after the answer, as with every refusal here.
      reply.header('Connection', 'close');
      throw err;
    }
    if (gone()) return reply.hijack();
    // Bytes after the body that the HTTP parser refused: the body ran past its Content-Length.
    if (parserRefused(socket))
      return reject(
        reply,
        storageError('content_length_mismatch', `the body ran past its Content-Length; ${admitted.lost}`),
      );
    if (outcome === 'closed') return reject(reply, storageError('upload_closed', CLOSED));
    return reply.code(200).header('ETag', `"${outcome.etag}"`).send();
  }

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Any Content-Type (or none): leave the body in the socket for the handler to stream.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    scope.put('/storage/*', (request, reply) => receive(request, reply, () => checkPut(s, request, receiver)));
    scope.put('/storage-parts/:fileId/:partNumber', (request, reply) =>
      receive(request, reply, () => checkPartPut(s, request, receiver)),
    );

    // GET and HEAD of a file URL: one handler, so HEAD answers exactly the headers GET would.
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/storage/*',
      handler: (request, reply) => getFile(s, disk, request, reply, hookHeaders),
    });
  });
}

/** The answer to a body the disk refused (the client's doing, or a full disk); null for any other error. */
function refusalOf(err: unknown, lost: string): HttpError | null {
  if (err instanceof DigestMismatchError)
    return storageError('bad_digest', `${err.message}: the bytes changed on the way; ${lost} — send the file again`);
  if (err instanceof LengthMismatchError)
    return storageError('content_length_mismatch', `${err.message}; ${lost} — send exactly the signed number of bytes`);
  if (err instanceof SlowBodyError) return storageError('request_timeout', `${err.message}; ${lost} — send it again`);
  if (isDiskFull(err))
    return storageError('insufficient_storage', `the server has no disk space left; ${lost} — try later`);
  return null;
}

/**
 * A signed GET (or HEAD) of a stored file: the whole file, one range of it (so browsers seek in
 * a video), 304 or 416, as src/server/file-answer.ts decides from the open file's facts.
 *
 * A body is written here, not handed to Fastify as a stream: its bytes go through two reused
 * buffers (../storage/send-file.ts says why), which only the write callbacks of the answer
 * itself can tell free. So the reply is hijacked, and the headers Fastify's onSend hooks give
 * every other answer (`hookHeaders`: nosniff, Connection: close while the server drains) are
 * written with the file's own; the onResponse hooks (the request's log line, metrics) still run.
 */
async function getFile(
  s: Services,
  disk: DiskStorage,
  request: FastifyRequest,
  reply: FastifyReply,
  hookHeaders: () => Record<string, string>,
) {
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
  const shown = await servedAs(s, signed.key);
  const object = shown ? await disk.openRead(signed.key) : null;
  if (!shown || !object) return sendError(reply, storageError('not_found', 'no such object; it may have been deleted'));
  const answer = planFileAnswer(
    { ...object, ...shown },
    {
      range: oneHeader(request.headers.range),
      ifRange: oneHeader(request.headers['if-range']),
      ifNoneMatch: oneHeader(request.headers['if-none-match']),
    },
  );
  if (request.method === 'HEAD' || !('start' in answer)) {
    await object.close();
    return reply.code(answer.status).headers(answer.headers).send();
  }
  // The status and headers go out with the first bytes read, not before: a file that cannot be
  // read at all is still answered with an error, not a transfer cut short at byte 0.
  let started = false;
  const head = () => {
    started = true;
    reply.hijack();
    // Through reply.headers, which names them in lower case as it does the file's own: no header twice.
    reply.code(answer.status).headers(answer.headers).headers(hookHeaders());
    reply.raw.writeHead(answer.status, definedHeaders(reply.getHeaders()));
  };
  try {
    const outcome = await object.send(reply.raw, answer.start, answer.end, head);
    // The client left before the first bytes: nothing to answer, and no one to answer it to.
    if (!started && outcome === 'gone') reply.hijack();
  } catch (err) {
    const where = { err, key: signed.key, path: disk.pathOf(signed.key) };
    if (!started) {
      request.log.error(
        where,
        "reading a stored file failed before any of it was sent, so it was answered 500; check the data dir's disk and this file",
      );
      return sendError(
        reply,
        apiError('internal', 'the server could not read this file; try again, and report it if it keeps happening'),
      );
    }
    // The headers promised a length the body cannot keep: the answer is cut (send-file.ts).
    request.log.error(
      where,
      "reading a stored file failed, so its answer was cut short (the client sees a broken transfer and may retry); check the data dir's disk and this file",
    );
  }
}

/**
 * The type and name a stored object is served with: its upload's, or for a poster or preview
 * (issue 39, which has no upload of its own) a JPEG named after its file, while that file's
 * upload is there. Null: no such object.
 */
async function servedAs(s: Services, key: string): Promise<{ contentType: string; fileName: string } | null> {
  const upload = await s.repo.getUpload(key);
  if (upload) return { contentType: upload.contentType, fileName: upload.fileName };
  const source = sourceKeyOfPreview(key);
  const of = source ? await s.repo.getUpload(source) : null;
  return of ? { contentType: PREVIEW_CONTENT_TYPE, fileName: `${of.fileName}${PREVIEW_SUFFIX}` } : null;
}

/** Headers as Node writes them: those set to undefined left out. */
function definedHeaders(headers: Record<string, OutgoingHttpHeader | undefined>): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
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

/** Everything a single PUT must satisfy before a byte is read, in the order S3 checks it. */
async function checkPut(s: Services, request: FastifyRequest, receiver: DiskReceiver): Promise<Admitted | HttpError> {
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
  const key = signed.key;
  return {
    keyId: upload.keyId,
    lost: 'nothing was stored',
    async write(body, bodyWhole) {
      // Under the key's lock, once the bytes are on disk: still open? then stored.
      const stillOpen = async () => {
        if (!(await bodyWhole()) || !(await s.repo.openForPut(fileId, s.deps.now().toISOString()))) return false;
        await s.repo.markStored(upload.key, s.deps.now().toISOString());
        return true;
      };
      const stored = await receiver.object(key, body, upload.fileSize, stillOpen, upload.sha256);
      return stored === 'closed' ? 'closed' : { etag: fileId };
    },
  };
}

/** Everything a part PUT must satisfy before a byte is read: the part URL's signature (its exact length), expiry, the open upload. */
async function checkPartPut(
  s: Services,
  request: FastifyRequest,
  receiver: DiskReceiver,
): Promise<Admitted | HttpError> {
  const { fileId, partNumber: n } = request.params as { fileId: string; partNumber: string };
  const url = new URL(request.url, 'http://storage.invalid');
  const expires = Number(url.searchParams.get('expires') ?? NaN);
  const partNumber = /^[1-9]\d{0,4}$/.test(n) ? Number(n) : 0;
  const upload = /^[0-9a-f-]{36}$/.test(fileId) ? await s.repo.getUploadByFileId(fileId) : null;
  const plan = upload && recordedPlan(upload);
  const size = (plan && partBytes(plan, upload.fileSize, partNumber)) ?? -1;
  const valid =
    size > 0 &&
    Number.isSafeInteger(expires) &&
    verify(
      s.deps.secret,
      { method: 'PUT', key: partKey(fileId, partNumber), expires, contentType: PART_CONTENT_TYPE, contentLength: size },
      url.searchParams.get('signature') ?? '',
    );
  if (!upload || !plan || !valid)
    return storageError(
      'signature_mismatch',
      'the part URL signature does not match; ask POST /api/v1/upload/parts for a fresh one',
    );
  if (expires * 1000 <= s.deps.now().getTime())
    return storageError('expired', 'the part URL has expired; ask POST /api/v1/upload/parts for a fresh one');
  const open = async () => (await s.repo.openForPut(fileId, s.deps.now().toISOString())) !== null;
  if (!(await open())) return storageError('upload_closed', CLOSED);
  if (Number(request.headers['content-length']) !== size)
    return storageError(
      'content_length_mismatch',
      `part ${partNumber} is exactly ${size} bytes; send Content-Length: ${size}`,
    );
  const { start } = partRange(plan, upload.fileSize, partNumber);
  return {
    keyId: upload.keyId,
    lost: 'the part was not kept',
    write: async (body, bodyWhole) =>
      receiver.part(fileId, partNumber, start, body, size, async () => (await bodyWhole()) && (await open())),
  };
}
