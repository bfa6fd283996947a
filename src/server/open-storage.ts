// Opens the object store a server was pointed at, beside ./open-repo.ts (the metadata store): an
// S3-compatible bucket when a storage URL is given (the AWS SDK is imported only then), else the
// data dir's disk, served by this server itself (its PUT bodies land through the one receiver of
// routes/storage.ts, its parts beside its objects). Every call goes through the outage guard
// (./outage-guard.ts); readiness asks the store directly.
import type { DiskReceiver } from './context.js';
import type { Timeouts } from './limits.js';
import type { OutageLog } from './ops/outages.js';
import { outageGuard } from './outage-guard.js';
import { type DiskStorage, createDiskStorage } from './storage/disk.js';
import { diskCheck } from './storage/disk-check.js';
import { createDiskParts } from './storage/disk-parts.js';
import type { MultipartStore, Storage } from './storage/interface.js';

export interface StorageTarget {
  dataDir: string;
  /** s3://bucket[/prefix]; default: the data dir's disk. */
  storageUrl?: string;
  /** Overrides for the S3 client (tests point it at a local endpoint). */
  s3?: { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Test only: every disk PUT, single or part, fails with this errno code. */
  writeError?: string;
  /** The URLs' HMAC key (the disk store's). */
  secret: Buffer;
  /** The server's public base URL, known once it listens. */
  publicUrl: () => string;
  timeouts: Timeouts;
  now: () => Date;
  outages: OutageLog;
}

export interface OpenStorage {
  /** Every call guarded. */
  storage: Storage;
  /** Set when the objects are on this server's disk (guarded), with the receiver of its PUT bodies. */
  disk?: DiskStorage;
  receiver?: DiskReceiver;
  /** The store's multipart uploads, when it has them (on disk: its parts), guarded. */
  multipart?: MultipartStore;
  /** Readiness, asked of the store directly (probes are not requests that failed). */
  check(): Promise<void>;
  close(): void;
}

export async function openStorage(t: StorageTarget): Promise<OpenStorage> {
  const { outages } = t;
  if (t.storageUrl !== undefined) {
    const s3 = await openS3Storage(t.storageUrl, { ...t.s3, timeoutMs: t.timeouts.storageMs }, t.now);
    return {
      // Signing a URL never reaches the store.
      storage: outageGuard(s3, { part: 'storage', outages, passThrough: ['presignPut', 'presignGet'] }),
      ...(s3.multipart
        ? { multipart: outageGuard(s3.multipart, { part: 'storage', outages, passThrough: ['presignPart'] }) }
        : {}),
      // On S3 the bucket must answer.
      check: () => s3.check(),
      close: () => s3.close(),
    };
  }
  const rawDisk = createDiskStorage({
    dataDir: t.dataDir,
    secret: t.secret,
    publicUrl: t.publicUrl,
    writeError: t.writeError,
  });
  // Signing a URL never reaches the store; a PUT body's errors are the client's (routes/storage.ts).
  const disk = outageGuard(rawDisk, {
    part: 'storage',
    outages,
    passThrough: ['presignPut', 'presignGet', 'receive', 'pathOf', 'hashedOnArrival'],
    // File system calls have no time limit of their own (a hung network disk).
    deadlineMs: t.timeouts.storageMs,
  });
  // Multipart uploads (issue 28): the disk store's parts live beside its objects.
  // No deadline: joining a gigabyte's parts on disk takes as long as it takes.
  const parts = createDiskParts(t.dataDir, t.secret, t.publicUrl, rawDisk.pathOf, t.now, { writeError: t.writeError });
  const multipart = outageGuard(parts, { part: 'storage', outages, passThrough: ['presignPart'] });
  // The PUT bodies (single and part): no deadline (a gigabyte takes as long as its client takes),
  // and only errors that mean the disk is down become 503s; a body's own faults pass through.
  const receiver = outageGuard({ object: rawDisk.receive, part: parts.receive }, { part: 'storage', outages });
  const folder = diskCheck(t.dataDir);
  return {
    storage: disk,
    disk,
    receiver,
    multipart,
    // This server receives the PUTs: its data folder must take a write, and the store its folders.
    check: async () => {
      await folder();
      await rawDisk.check();
    },
    close: () => undefined,
  };
}

/** The S3 storage of `--storage s3://bucket/prefix`; the AWS SDK is imported only then. */
async function openS3Storage(
  url: string,
  o: NonNullable<StorageTarget['s3']> & { timeoutMs: number },
  now: () => Date,
) {
  const { createS3Storage, parseS3Url } = await import('./storage/s3.js');
  const location = parseS3Url(url);
  if (location instanceof Error) throw location;
  return createS3Storage({ location, now, ...o });
}
