// The disk store's multipart uploads (issue 28, docs/api.md "Multipart uploads"), the same
// MultipartStore as S3's (interface.ts). Every part PUT writes its bytes at its offset into ONE
// data file of the upload, `parts/<fileId>/data`, so complete copies nothing: it renames that
// file to the staging object. A part counts as stored only once its marker `parts/<fileId>/<n>`
// exists (its range and ETag, written after the bytes are fsynced, via temp + rename); the marker
// is removed before the part's bytes are written again, so a marker never vouches for bytes in
// flux and a part is whole or absent. The data file lives apart from the staging path because
// the upload's single-PUT URL stays valid and writes that path itself.
//
// The joined file's SHA-256 is computed as parts land, in memory, in one hash per open upload
// that covers parts 1..k. The part next in order is hashed while it lands, from the bytes as they
// are written (as a single PUT's body is, ./disk.ts); when a part becomes next while it is still
// landing (parts are sent several at once), what of it is written already is read back (still in
// the page cache) and the rest hashed as it lands. A part stored out of order is read back once
// the parts before it are hashed. So complete reads only what that rolling hash has not covered:
// nothing when the parts came in order one after another; a rewrite of a hashed part, a restart
// or a gap that never closes just leaves more for complete to read.
//
// In this process: one write per (upload, part) at a time (a second PUT of the same part waits
// for the first); a complete while a part is being written is refused as changed (S3's
// InvalidPart), and a part PUT arriving during a complete waits for it (then finds the upload
// closed, or open again after a refusal). The upload id is the file id.
import { type Hash, createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type FileHandle,
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { keyLocks } from '../key-lock.js';
import { sign } from '../signing.js';
import { LengthMismatchError } from './disk.js';
import { type MultipartStore, ObjectStateError, fileIdOfStagingKey, stagingKeyOf } from './interface.js';

/** The one Content-Type a part PUT carries (signed): a part is bytes, not a file. */
export const PART_CONTENT_TYPE = 'application/octet-stream';

/** What a part URL signs: the part, its exact length and the expiry (src/server/signing.ts). */
export const partKey = (fileId: string, partNumber: number) => `parts/${fileId}/${partNumber}`;

export interface DiskParts extends MultipartStore {
  /**
   * Streams one part into the upload's data file at `offset` (where the recorded plan puts it);
   * `stillOpen` (the upload is open) decides whether it is kept. Returns the stored part's ETag.
   */
  receive(
    fileId: string,
    partNumber: number,
    offset: number,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
  ): Promise<{ etag: string } | 'closed'>;
  /** Resolves once the hashing of the parts stored so far (and any complete) of the upload is done. */
  idle(fileId: string): Promise<void>;
}

function fileIdOf(stagingKey: string, uploadId: string): string {
  const fileId = fileIdOfStagingKey(stagingKey);
  if (!fileId || fileId !== uploadId) throw new Error(`no disk multipart upload ${uploadId} for ${stagingKey}`);
  return fileId;
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** Made when an upload is opened, its times set by the server's clock (listUploads' `initiated`). */
const OPENED = '.opened';
/** The upload's bytes, every part at its offset. */
const DATA = 'data';
const READ_CHUNK = 4 * 1024 * 1024;
/** Markers read at once (each a small file: open, read, close). */
const MARKER_READS = 16;

/** A marker's content: where the part's bytes are in the data file, and its ETag. */
interface Marker {
  offset: number;
  size: number;
  etag: string;
}

/** The SHA-256 of parts 1..next-1 (bytes 0..covered), and the ETags those parts had when read. */
interface Rolling {
  hash: Hash;
  next: number;
  covered: number;
  etags: string[];
}

/** A part being written now: how much of this write is in the data file, and who hashes it. */
interface Landing {
  offset: number;
  size: number;
  /** Bytes of this write already written, from `offset` on. */
  landed: number;
  follower: Follower | null;
}

/** The rolling hash of `base` (null: none yet, part 1 is next) carried on over a landing part. */
interface Follower {
  base: Rolling | null;
  hash: Hash;
  /** Bytes of the part hashed so far. */
  hashed: number;
  /** Chunks written while what landed before is read back; null once that is done. */
  queue: Buffer[] | null;
  /** Resolves once what had landed when it began is hashed (`failed` says whether it could be). */
  caughtUp: Promise<void>;
  failed: boolean;
}

/**
 * A Writable that writes at `offset + written` of an open file, refusing any byte past `limit`
 * (a body must never spill into the next part), fsyncing before it finishes; `onWritten` is
 * given each batch of chunks once it is in the file, in order.
 */
function rangeSink(
  handle: FileHandle,
  offset: number,
  limit: number,
  writeError?: string,
  onWritten: (buffers: Buffer[]) => void = () => undefined,
): Writable & { written: () => number } {
  let written = 0;
  const sink = new Writable({
    highWaterMark: 1024 * 1024,
    writev(chunks, cb) {
      if (writeError)
        return cb(
          Object.assign(new Error(`${writeError}: fault injected, the disk refuses writes`), { code: writeError }),
        );
      const buffers = chunks.map((c) => c.chunk as Buffer);
      const length = buffers.reduce((n, b) => n + b.length, 0);
      if (written + length > limit) return cb(new LengthMismatchError(limit, written + length));
      const at = offset + written;
      written += length;
      handle.writev(buffers, at).then(() => {
        onWritten(buffers);
        cb();
      }, cb);
    },
    final(cb) {
      handle.datasync().then(() => cb(), cb);
    },
  });
  return Object.assign(sink, { written: () => written });
}

/**
 * The read buffers of the rolling hash and of complete, reused: a fresh 4 MiB buffer per part was
 * 512 MB of short-lived memory per GiB received, and the server's main thread spent about twice
 * the single PUT's time collecting garbage (bench/notes.md, issue 41). A hash reads through two
 * (./hashRange); a few hashes of an upload may read at once (the rolling hash, a part's that
 * landed before its turn, complete), and each buffer is given back once its reads are done.
 */
export function readBuffers(): {
  lend<T>(use: (buf: Buffer) => Promise<T>): Promise<T>;
  /** Two at once (a range read ahead while the one before is hashed). */
  lendTwo<T>(use: (bufs: readonly [Buffer, Buffer]) => Promise<T>): Promise<T>;
} {
  const spare: Buffer[] = [];
  const lend = async <T>(use: (buf: Buffer) => Promise<T>): Promise<T> => {
    const buf = spare.pop() ?? Buffer.allocUnsafe(READ_CHUNK);
    try {
      return await use(buf);
    } finally {
      spare.push(buf);
    }
  };
  return { lend, lendTwo: (use) => lend((a) => lend((b) => use([a, b]))) };
}

/** Reads `length` bytes at `position` of `handle` into the start of `buf`. */
async function readFully(handle: FileHandle, buf: Buffer, length: number, position: number): Promise<void> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) throw new Error(`the data file ends at ${position + got}, before ${position + length}`);
    got += bytesRead;
  }
}

/**
 * Reads bytes start..start+length of `handle` into `hash`, through two buffers taken in turn: the
 * next range is read (on libuv's threads) while the one before is hashed (on this one), where one
 * buffer left the hash waiting on every read.
 */
async function hashRange(
  handle: FileHandle,
  hash: Hash,
  start: number,
  length: number,
  bufs: readonly [Buffer, Buffer],
): Promise<void> {
  let offset = 0;
  let turn = 0;
  const readNext = () => {
    const buf = bufs[turn++ % 2]!;
    const size = Math.min(buf.length, length - offset);
    const read = readFully(handle, buf, size, start + offset);
    offset += size;
    return { read, bytes: buf.subarray(0, size) };
  };
  if (length <= 0) return;
  let current = readNext();
  for (;;) {
    await current.read;
    const ahead = offset < length ? readNext() : null;
    hash.update(current.bytes);
    if (!ahead) return;
    current = ahead;
  }
}

/**
 * `pathOf` is the disk store's: where the staging object the parts are joined into lives.
 * `writeError` (tests only): every part's write fails with this errno code, as the disk store's
 * own option (disk.ts).
 */
export function createDiskParts(
  dataDir: string,
  secret: Buffer,
  publicUrl: () => string,
  pathOf: (key: string) => string,
  now: () => Date = () => new Date(),
  o: { writeError?: string } = {},
): DiskParts {
  const root = join(dataDir, 'parts');
  const dirOf = (fileId: string) => join(root, fileId);
  const dataOf = (fileId: string) => join(dirOf(fileId), DATA);
  const markerOf = (fileId: string, n: number) => join(dirOf(fileId), String(n));
  const partLock = keyLocks();
  /** Per upload: hashing and complete, one at a time. */
  const uploadLock = keyLocks();
  /** Per upload: the part numbers being written now (their markers are gone). */
  const writing = new Map<string, Set<number>>();
  /** Per upload: a complete running, which part writes wait for. */
  const completing = new Map<string, Promise<unknown>>();
  const rolling = new Map<string, Rolling>();
  /** Per upload: its parts being written now, by part number. */
  const landings = new Map<string, Map<number, Landing>>();
  const buffers = readBuffers();
  /**
   * Per upload: marker writes under way, which removing its folder waits for, and the uploads whose
   * folder is being removed, which take no new marker. A marker's temp file made in the folder
   * after rm listed it would stop rm's rmdir (ENOTEMPTY): an abort failed so under part PUTs.
   */
  const markerWrites = new Map<string, { count: number; drained: (() => void)[] }>();
  const removing = new Set<string>();

  async function readMarker(fileId: string, n: number): Promise<Marker | null> {
    const text = await readFile(markerOf(fileId, n), 'utf8').catch((err: unknown) => {
      if (errnoOf(err) === 'ENOENT') return null;
      throw err;
    });
    if (text === null) return null;
    try {
      const m = JSON.parse(text) as Partial<Marker>;
      if (typeof m.offset === 'number' && typeof m.size === 'number' && typeof m.etag === 'string')
        return { offset: m.offset, size: m.size, etag: m.etag };
    } catch {
      // Not a marker of ours (a part written by an older server): not stored.
    }
    return null;
  }

  async function markers(fileId: string): Promise<Map<number, Marker>> {
    const names = await readdir(dirOf(fileId)).catch(() => null);
    if (!names) throw new ObjectStateError('missing', `parts/${fileId}`);
    const found = new Map<number, Marker>();
    const numbers = names.filter((n) => /^[1-9]\d{0,4}$/.test(n)).map(Number);
    // A few at a time, not one after another: complete reads every marker (twice, with the list
    // before it), 128 small files for 1 GiB.
    for (let i = 0; i < numbers.length; i += MARKER_READS) {
      const batch = numbers.slice(i, i + MARKER_READS);
      const read = await Promise.all(batch.map((n) => readMarker(fileId, n)));
      read.forEach((marker, j) => marker && found.set(batch[j]!, marker));
    }
    return found;
  }

  const writingOf = (fileId: string) => writing.get(fileId) ?? writing.set(fileId, new Set()).get(fileId)!;
  const landingsOf = (fileId: string) => landings.get(fileId) ?? landings.set(fileId, new Map()).get(fileId)!;

  /**
   * Extends the upload's rolling hash over the parts stored next in order. A part is taken only if
   * its marker is the same before and after its bytes are read and no write of it began meanwhile.
   */
  async function advance(fileId: string): Promise<void> {
    await uploadLock(fileId, async () => {
      const known = rolling.get(fileId);
      const state = known ?? { hash: createHash('sha256'), next: 1, covered: 0, etags: [] };
      let handle: FileHandle | null = null;
      try {
        for (;;) {
          const n = state.next;
          const marker = await readMarker(fileId, n);
          if (!marker || marker.offset !== state.covered || writing.get(fileId)?.has(n)) return;
          const data = (handle ??= await open(dataOf(fileId), 'r'));
          const hash = state.hash.copy();
          await buffers.lendTwo((bufs) => hashRange(data, hash, marker.offset, marker.size, bufs));
          if (writing.get(fileId)?.has(n) || (await readMarker(fileId, n))?.etag !== marker.etag) return;
          // Forgotten meanwhile (an earlier part is being written again): start over another time.
          if (rolling.get(fileId) !== state && (known || state.next > 1)) return;
          // Taken meanwhile by the hash of a part as it landed (never this one: it was not being written).
          if (state.next !== n || (!known && n === 1 && rolling.has(fileId))) return;
          rolling.set(fileId, state);
          state.hash = hash;
          state.etags.push(marker.etag);
          state.covered += marker.size;
          state.next = n + 1;
        }
      } finally {
        await handle?.close();
      }
    });
    // Stopped at a part still being written: hash the rest of it as it lands.
    follow(fileId);
  }

  /**
   * Starts hashing the part next in order as it lands, if it is being written now: what of it is
   * written already is read back, then every chunk is hashed as it is written (`written`).
   */
  function follow(fileId: string): void {
    const base = rolling.get(fileId) ?? null;
    const landing = landings.get(fileId)?.get(base?.next ?? 1);
    if (!landing || landing.follower || landing.offset !== (base?.covered ?? 0)) return;
    const upTo = landing.landed;
    const f: Follower = {
      base,
      hash: base ? base.hash.copy() : createHash('sha256'),
      hashed: 0,
      queue: [],
      caughtUp: Promise.resolve(),
      failed: false,
    };
    landing.follower = f;
    f.caughtUp = (async () => {
      if (upTo > 0) {
        const data = await open(dataOf(fileId), 'r');
        try {
          await buffers.lendTwo((bufs) => hashRange(data, f.hash, landing.offset, upTo, bufs));
        } finally {
          await data.close();
        }
        f.hashed += upTo;
      }
      for (const chunk of f.queue ?? []) {
        f.hash.update(chunk);
        f.hashed += chunk.length;
      }
      f.queue = null;
    })().catch(() => {
      // The read failed: this part is left to be read back later, as one stored out of order.
      f.failed = true;
      f.queue = null;
    });
  }

  /** A batch of a landing part's chunks is in the data file: its follower hashes it (or keeps it until caught up). */
  function written(landing: Landing, chunks: Buffer[]): void {
    for (const chunk of chunks) landing.landed += chunk.length;
    const f = landing.follower;
    if (!f || f.failed) return;
    if (f.queue) f.queue.push(...chunks);
    else
      for (const chunk of chunks) {
        f.hash.update(chunk);
        f.hashed += chunk.length;
      }
  }

  /**
   * The part is stored with `etag`: if it was hashed whole as it landed, over the rolling hash that
   * is still the upload's, that hash now covers it. Else it is read back later, or by complete.
   */
  async function hashedAsLanded(fileId: string, n: number, landing: Landing, etag: string): Promise<void> {
    const f = landing.follower;
    if (!f) return;
    await f.caughtUp;
    const base = rolling.get(fileId) ?? null;
    if (f.failed || f.hashed !== landing.size || base !== f.base || (base?.next ?? 1) !== n) return;
    // Aborted meanwhile (abort takes the followers away): no rolling hash may outlive the upload.
    if (landing.follower !== f) return;
    const state = base ?? { hash: f.hash, next: 1, covered: 0, etags: [] };
    state.hash = f.hash;
    state.etags.push(etag);
    state.covered += landing.size;
    state.next = n + 1;
    rolling.set(fileId, state);
  }

  /** Forgets what the rolling hash covers from part `n` on (its bytes are being written again). */
  function invalidate(fileId: string, n: number): void {
    const state = rolling.get(fileId);
    if (state && n < state.next) rolling.delete(fileId);
  }

  /** Stores part `n`'s marker; false when the upload's folder is being removed (aborted meanwhile). */
  async function writeMarker(fileId: string, n: number, marker: Marker): Promise<boolean> {
    if (removing.has(fileId)) return false;
    const writes = markerWrites.get(fileId) ?? markerWrites.set(fileId, { count: 0, drained: [] }).get(fileId)!;
    writes.count++;
    const temp = join(dirOf(fileId), `.${randomUUID()}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(marker), { mode: 0o600, flag: 'wx', flush: true });
      await rename(temp, markerOf(fileId, n));
      return true;
    } finally {
      await rm(temp, { force: true });
      if (--writes.count === 0) {
        markerWrites.delete(fileId);
        for (const drained of writes.drained) drained();
      }
    }
  }

  /** Removes the upload's folder once the marker writes under way are done; none begins meanwhile. */
  async function removeFolder(fileId: string): Promise<void> {
    removing.add(fileId);
    try {
      const writes = markerWrites.get(fileId);
      if (writes) await new Promise<void>((resolve) => writes.drained.push(resolve));
      await rm(dirOf(fileId), { recursive: true, force: true });
    } finally {
      removing.delete(fileId);
    }
  }

  /**
   * Removes part `n`'s marker, durably when there was one: after a crash, an old marker must not
   * come back to vouch for bytes that were being written again.
   */
  async function unmark(fileId: string, n: number): Promise<void> {
    const removed = await unlink(markerOf(fileId, n)).then(
      () => true,
      (err: unknown) => {
        if (errnoOf(err) === 'ENOENT') return false;
        throw err;
      },
    );
    if (!removed) return;
    const dir = await open(dirOf(fileId), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Writes the part's bytes and then its marker; the part's lock is held. */
  async function store(
    fileId: string,
    n: number,
    offset: number,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
  ): Promise<{ etag: string } | 'closed'> {
    // A complete running: wait for it (then the upload is usually closed).
    while (completing.has(fileId)) await completing.get(fileId)!.catch(() => undefined);
    const inFlight = writingOf(fileId);
    inFlight.add(n);
    try {
      invalidate(fileId, n);
      await unmark(fileId, n);
      const handle = await open(dataOf(fileId), 'r+').catch((err: unknown) => {
        if (errnoOf(err) === 'ENOENT') return null;
        throw err;
      });
      // Aborted (its folder removed): the upload takes no more parts.
      if (!handle) return 'closed';
      const landing: Landing = { offset, size: expectedBytes, landed: 0, follower: null };
      landingsOf(fileId).set(n, landing);
      follow(fileId);
      try {
        const sink = rangeSink(handle, offset, expectedBytes, o.writeError, (chunks) => written(landing, chunks));
        await pipeline(body, sink);
        if (sink.written() !== expectedBytes) throw new LengthMismatchError(expectedBytes, sink.written());
      } finally {
        await handle.close();
      }
      if (!(await stillOpen())) return 'closed';
      const etag = randomBytes(16).toString('hex');
      try {
        if (!(await writeMarker(fileId, n, { offset, size: expectedBytes, etag }))) return 'closed';
      } catch (err) {
        // Aborted while the part arrived: its folder is gone, and the part with it.
        if (errnoOf(err) === 'ENOENT') return 'closed';
        throw err;
      }
      await hashedAsLanded(fileId, n, landing, etag);
      return { etag };
    } finally {
      inFlight.delete(n);
      if (inFlight.size === 0) writing.delete(fileId);
      const now_ = landings.get(fileId);
      now_?.delete(n);
      if (now_?.size === 0) landings.delete(fileId);
    }
  }

  /** The SHA-256 of bytes 0..total of the data file, starting from the rolling hash when it still holds. */
  async function finishHash(fileId: string, ordered: Marker[], total: number): Promise<string> {
    const state = rolling.get(fileId);
    const holds = state && state.etags.every((etag, i) => ordered[i]?.etag === etag);
    const hash = holds ? state.hash : createHash('sha256');
    const from = holds ? state.covered : 0;
    const handle = await open(dataOf(fileId), 'r');
    try {
      await buffers.lendTwo((bufs) => hashRange(handle, hash, from, total - from, bufs));
      // Bytes past the last part (never written by a valid plan) are cut off.
      if ((await handle.stat()).size > total) await handle.truncate(total);
    } finally {
      await handle.close();
    }
    return hash.digest('hex');
  }

  async function join_(fileId: string, parts: readonly { partNumber: number; etag: string }[], target: string) {
    const stored = await markers(fileId);
    const ordered: Marker[] = [];
    let total = 0;
    for (const p of [...parts].sort((a, b) => a.partNumber - b.partNumber)) {
      const marker = stored.get(p.partNumber);
      // Sent again (or gone) since the caller listed it: as S3's InvalidPart.
      if (marker?.etag !== p.etag.replace(/"/g, ''))
        throw new ObjectStateError('changed', partKey(fileId, p.partNumber));
      if (marker.offset !== total)
        throw new Error(`part ${p.partNumber} of ${fileId} is not where the parts before it end`);
      ordered.push(marker);
      total += marker.size;
    }
    const sha256 = await finishHash(fileId, ordered, total).catch((err: unknown) => {
      // Renamed by a complete that did not get to remove the folder: nothing left to join here.
      throw errnoOf(err) === 'ENOENT' ? new ObjectStateError('missing', `parts/${fileId}`) : err;
    });
    await rename(dataOf(fileId), target);
    rolling.delete(fileId);
    await removeFolder(fileId);
    return sha256;
  }

  return {
    async create(stagingKey) {
      const fileId = fileIdOfStagingKey(stagingKey);
      if (!fileId) throw new Error(`not a staging key: ${stagingKey}`);
      // Made under a name listUploads skips, then renamed into place whole: a sweep listing the
      // uploads meanwhile never sees one without its opening time (which it would take for an
      // old upload's, and abort it).
      const making = join(root, `.${fileId}.${randomUUID()}`);
      await mkdir(making, { recursive: true, mode: 0o700 });
      try {
        // Grown by the part writes (sparse until every part landed).
        await writeFile(join(making, DATA), '', { mode: 0o600, flag: 'a' });
        const opened = join(making, OPENED);
        await writeFile(opened, '', { mode: 0o600 });
        await utimes(opened, now(), now());
        await rename(making, dirOf(fileId));
      } finally {
        await rm(making, { recursive: true, force: true });
      }
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
    async receive(fileId, partNumber, offset, body, expectedBytes, stillOpen) {
      // An upload aborted (its folder removed) takes no more parts.
      if (!(await stat(dirOf(fileId)).catch(() => null))) return 'closed';
      const outcome = await partLock(`${fileId}/${partNumber}`, () =>
        store(fileId, partNumber, offset, body, expectedBytes, stillOpen),
      );
      // Hashed while the part is still in the page cache, after the PUT is answered (the client's
      // connection goes on to its next part; complete waits for it); a failure only leaves more for complete.
      if (outcome !== 'closed') void advance(fileId).catch(() => rolling.delete(fileId));
      return outcome;
    },
    idle: (fileId) => uploadLock(fileId, async () => undefined),
    async listParts(stagingKey, uploadId) {
      const found = await markers(fileIdOf(stagingKey, uploadId));
      return [...found]
        .map(([partNumber, m]) => ({ partNumber, size: m.size, etag: m.etag }))
        .sort((a, b) => a.partNumber - b.partNumber);
    },
    async complete(stagingKey, uploadId, parts) {
      const fileId = fileIdOf(stagingKey, uploadId);
      // A part being written now is not the one named (its marker is gone): as S3's InvalidPart.
      const inFlight = [...(writing.get(fileId) ?? [])];
      if (inFlight.length > 0) throw new ObjectStateError('changed', partKey(fileId, inFlight[0]!));
      const run = uploadLock(fileId, () => join_(fileId, parts, pathOf(stagingKey)));
      completing.set(fileId, run);
      try {
        return { sha256: await run };
      } finally {
        if (completing.get(fileId) === run) completing.delete(fileId);
      }
    },
    async abort(stagingKey, uploadId) {
      const fileId = fileIdOf(stagingKey, uploadId);
      // After any hashing under way, so no rolling hash outlives the upload.
      await uploadLock(fileId, async () => {
        rolling.delete(fileId);
        for (const landing of landings.get(fileId)?.values() ?? []) landing.follower = null;
        await removeFolder(fileId);
      });
    },
    async listUploads() {
      const ids = (await readdir(root).catch(() => [] as string[])).filter((id) => fileIdOfStagingKey(`staging/${id}`));
      const open_ = [];
      for (const id of ids) {
        // Parts written later change the folder's times, not the marker's; none: opened before markers.
        const info = await stat(join(dirOf(id), OPENED)).catch(() => null);
        open_.push({ stagingKey: stagingKeyOf(id), uploadId: id, initiated: info?.mtime ?? new Date(0) });
      }
      return open_;
    },
  };
}
