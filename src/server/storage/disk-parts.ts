// The disk store's multipart uploads (issue 28, docs/api.md "Multipart uploads"), the same
// MultipartStore as S3's (interface.ts): each part PUT lands in `parts/<fileId>/<partNumber>`
// (written to a temp file, then renamed, so a part is whole or absent), and complete joins them,
// in part order, into the upload's staging object — hashing the bytes as they pass, so the
// joined file's SHA-256 costs no second read. From there the file is checked like a single PUT's.
// The upload id is the file id: one staging object, one set of parts.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sign } from '../signing.js';
import { LengthMismatchError } from './disk.js';
import {
  type MultipartStore,
  ObjectStateError,
  type StoredPart,
  fileIdOfStagingKey,
  stagingKeyOf,
} from './interface.js';

/** The one Content-Type a part PUT carries (signed): a part is bytes, not a file. */
export const PART_CONTENT_TYPE = 'application/octet-stream';

/** What a part URL signs: the part, its exact length and the expiry (src/server/signing.ts). */
export const partKey = (fileId: string, partNumber: number) => `parts/${fileId}/${partNumber}`;

export interface DiskParts extends MultipartStore {
  /** Streams one part to disk; `stillOpen` (the upload is open) decides whether it is kept. */
  receive(
    fileId: string,
    partNumber: number,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
  ): Promise<'stored' | 'closed'>;
}

function fileIdOf(stagingKey: string, uploadId: string): string {
  const fileId = fileIdOfStagingKey(stagingKey);
  if (!fileId || fileId !== uploadId) throw new Error(`no disk multipart upload ${uploadId} for ${stagingKey}`);
  return fileId;
}

/** Made when an upload is opened, its times set by the server's clock (listUploads' `initiated`). */
const OPENED = '.opened';

/** `pathOf` is the disk store's: where the staging object the parts are joined into lives. */
export function createDiskParts(
  dataDir: string,
  secret: Buffer,
  publicUrl: () => string,
  pathOf: (key: string) => string,
  now: () => Date = () => new Date(),
): DiskParts {
  const root = join(dataDir, 'parts');
  const dirOf = (fileId: string) => join(root, fileId);
  const tempOf = (fileId: string) => join(dirOf(fileId), `.${randomUUID()}.tmp`);

  async function list(fileId: string): Promise<StoredPart[]> {
    const names = await readdir(dirOf(fileId)).catch(() => null);
    if (!names) throw new ObjectStateError('missing', `parts/${fileId}`);
    const parts: StoredPart[] = [];
    for (const name of names.filter((n) => /^[1-9]\d{0,4}$/.test(n))) {
      const info = await stat(join(dirOf(fileId), name), { bigint: true }).catch(() => null);
      if (!info) continue;
      parts.push({
        partNumber: Number(name),
        size: Number(info.size),
        etag: `${info.ino.toString(16)}-${info.mtimeNs.toString(16)}`,
      });
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Joins the parts into a temp file beside the target, hashing as they pass; renamed into place. */
  async function join_(fileId: string, partNumbers: number[], target: string): Promise<string> {
    const temp = `${target}.${randomUUID()}.assembling`;
    const hash = createHash('sha256');
    try {
      const out = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true });
      for (const n of partNumbers) {
        const part = createReadStream(join(dirOf(fileId), String(n)));
        part.on('data', (chunk) => hash.update(chunk));
        await pipeline(part, out, { end: false });
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      await rename(temp, target);
      return hash.digest('hex');
    } finally {
      await rm(temp, { force: true });
    }
  }

  return {
    async create(stagingKey) {
      const fileId = fileIdOfStagingKey(stagingKey);
      if (!fileId) throw new Error(`not a staging key: ${stagingKey}`);
      await mkdir(dirOf(fileId), { recursive: true, mode: 0o700 });
      const opened = join(dirOf(fileId), OPENED);
      await writeFile(opened, '', { mode: 0o600 });
      await utimes(opened, now(), now());
      return fileId;
    },
    async presignPart({ stagingKey, uploadId, partNumber, size, expiresAt }) {
      const fileId = fileIdOf(stagingKey, uploadId);
      const expires = Math.floor(expiresAt.getTime() / 1000);
      const signature = sign(secret, {
        method: 'PUT',
        key: partKey(fileId, partNumber),
        expires,
        contentType: PART_CONTENT_TYPE,
        contentLength: size,
      });
      const query = new URLSearchParams({ expires: String(expires), signature });
      return {
        url: `${publicUrl()}/storage-parts/${fileId}/${partNumber}?${query.toString()}`,
        headers: { 'Content-Type': PART_CONTENT_TYPE, 'Content-Length': String(size) },
      };
    },
    async receive(fileId, partNumber, body, expectedBytes, stillOpen) {
      // An upload aborted (its folder removed) takes no more parts.
      if (!(await stat(dirOf(fileId)).catch(() => null))) return 'closed';
      const temp = tempOf(fileId);
      try {
        const out = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true });
        await pipeline(body, out);
        if (out.bytesWritten !== expectedBytes) throw new LengthMismatchError(expectedBytes, out.bytesWritten);
        if (!(await stillOpen())) return 'closed';
        try {
          await rename(temp, join(dirOf(fileId), String(partNumber)));
        } catch (err) {
          // Aborted while the part arrived: its folder is gone, and the part with it.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'closed';
          throw err;
        }
        return 'stored';
      } finally {
        await rm(temp, { force: true });
      }
    },
    listParts: async (stagingKey, uploadId) => list(fileIdOf(stagingKey, uploadId)),
    async complete(stagingKey, uploadId, parts) {
      const fileId = fileIdOf(stagingKey, uploadId);
      const stored = new Map((await list(fileId)).map((p) => [p.partNumber, p]));
      for (const p of parts) {
        // Sent again (or gone) since the caller listed it: as S3's InvalidPart.
        if (stored.get(p.partNumber)?.etag !== p.etag.replace(/"/g, ''))
          throw new ObjectStateError('changed', partKey(fileId, p.partNumber));
      }
      const numbers = parts.map((p) => p.partNumber).sort((a, b) => a - b);
      const sha256 = await join_(fileId, numbers, pathOf(stagingKey));
      await rm(dirOf(fileId), { recursive: true, force: true });
      return { sha256 };
    },
    async abort(stagingKey, uploadId) {
      await rm(dirOf(fileIdOf(stagingKey, uploadId)), { recursive: true, force: true });
    },
    async listUploads() {
      const ids = (await readdir(root).catch(() => [] as string[])).filter((id) => fileIdOfStagingKey(`staging/${id}`));
      const open = [];
      for (const id of ids) {
        // Parts written later change the folder's times, not the marker's; none: opened before markers.
        const info = await stat(join(dirOf(id), OPENED)).catch(() => null);
        open.push({ stagingKey: stagingKeyOf(id), uploadId: id, initiated: info?.mtime ?? new Date(0) });
      }
      return open;
    },
  };
}
