// The disk store's side of a multipart upload (issue 28, docs/api.md "Multipart uploads"): each
// part PUT lands in `parts/<fileId>/<partNumber>` (written to a temp file, then renamed, so a
// part is whole or absent), and complete concatenates them, in part order, into the upload's
// staging object — from there the file is checked exactly like a single PUT's.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sign } from '../signing.js';
import { LengthMismatchError } from './disk.js';

/** The one Content-Type a part PUT carries (signed): a part is bytes, not a file. */
export const PART_CONTENT_TYPE = 'application/octet-stream';

/** What a part URL signs: the part, its exact length and the expiry (src/server/signing.ts). */
export const partKey = (fileId: string, partNumber: number) => `parts/${fileId}/${partNumber}`;

export interface StoredPart {
  partNumber: number;
  size: number;
  /** Changes whenever the part is written again (a retried part). */
  etag: string;
}

export interface DiskParts {
  /** A signed URL for one part of exactly `size` bytes: PUT /storage-parts/<fileId>/<partNumber>. */
  presign(fileId: string, partNumber: number, size: number, expires: number): string;
  /** Streams one part to disk; `stillOpen` (the upload is open) decides whether it is kept. */
  receive(
    fileId: string,
    partNumber: number,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
  ): Promise<'stored' | 'closed'>;
  /** The parts received so far, in part order (the ListParts of a resuming client). */
  list(fileId: string): Promise<StoredPart[]>;
  /** Writes the parts, in order, as one file at `target` (via a temp file and a rename). */
  assemble(fileId: string, partNumbers: number[], target: string): Promise<void>;
  /** Removes every part of an upload; none is fine. */
  remove(fileId: string): Promise<void>;
  /** The file ids that have parts on disk (the sweeper's list). */
  fileIds(): Promise<string[]>;
}

export function createDiskParts(dataDir: string, secret: Buffer, publicUrl: () => string): DiskParts {
  const root = join(dataDir, 'parts');
  const dirOf = (fileId: string) => join(root, fileId);
  const tempOf = (fileId: string) => join(dirOf(fileId), `.${randomUUID()}.tmp`);

  async function list(fileId: string): Promise<StoredPart[]> {
    const names = await readdir(dirOf(fileId)).catch(() => [] as string[]);
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

  return {
    presign(fileId, partNumber, size, expires) {
      const signature = sign(secret, {
        method: 'PUT',
        key: partKey(fileId, partNumber),
        expires,
        contentType: PART_CONTENT_TYPE,
        contentLength: size,
      });
      const query = new URLSearchParams({ expires: String(expires), signature });
      return `${publicUrl()}/storage-parts/${fileId}/${partNumber}?${query.toString()}`;
    },
    async receive(fileId, partNumber, body, expectedBytes, stillOpen) {
      await mkdir(dirOf(fileId), { recursive: true });
      const temp = tempOf(fileId);
      try {
        const out = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true });
        await pipeline(body, out);
        if (out.bytesWritten !== expectedBytes) throw new LengthMismatchError(expectedBytes, out.bytesWritten);
        if (!(await stillOpen())) return 'closed';
        await rename(temp, join(dirOf(fileId), String(partNumber)));
        return 'stored';
      } finally {
        await rm(temp, { force: true });
      }
    },
    list,
    async assemble(fileId, partNumbers, target) {
      const temp = `${target}.${randomUUID()}.assembling`;
      try {
        // One handle written part after part: a pipeline per part into one stream with
        // `end: false` left its listeners on the stream (Node's MaxListenersExceededWarning
        // after 10 parts, printed on an embedded upload's terminal).
        const out = await open(temp, 'wx', 0o600);
        try {
          for (const n of partNumbers) {
            for await (const chunk of createReadStream(join(dirOf(fileId), String(n)), { highWaterMark: 1024 * 1024 }))
              for (let at = 0; at < (chunk as Buffer).length;)
                at += (await out.write(chunk as Buffer, at)).bytesWritten;
          }
          await out.sync();
        } finally {
          await out.close();
        }
        await rename(temp, target);
      } finally {
        await rm(temp, { force: true });
      }
    },
    async remove(fileId) {
      await rm(dirOf(fileId), { recursive: true, force: true });
    },
    async fileIds() {
      return readdir(root).catch(() => [] as string[]);
    },
  };
}
