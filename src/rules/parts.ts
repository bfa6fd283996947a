// How a large file is cut into parts for a multipart upload (issue 28): S3's limits, which the
// disk store follows too so that a client sees one behaviour. The part size starts at a
// preferred size and doubles while the file would need more than a few dozen parts (up to a
// ceiling), then as S3's part count demands; it is never below the store's minimum (every part
// but the last must be at least that big on S3). Every part's
// geometry is decided here, for the server (the offer at presign, a part's signed length, the
// join) and the client (when to ask, what to send, which stored parts are whole) alike.

const MIB = 1024 * 1024;

/** S3's limits for a multipart upload (UploadPart): 5 MiB–5 GiB per part, at most 10,000 parts. */
export const PART_LIMITS = {
  minPartBytes: 5 * MIB,
  maxPartBytes: 5 * 1024 * MIB,
  maxParts: 10_000,
  /** Where the size starts: the aws CLI's 8 MiB. */
  preferredPartBytes: 8 * MIB,
  /**
   * Every part costs a request, a signature, a journal row, on the disk store an fsync, and on
   * the client ~1–2 ms of CPU whatever its size: 128 parts of 8 MiB made a 1 GiB upload cost
   * 1.26× the CPU of one PUT (bench/notes.md). So the preferred size doubles while the file
   * would need more than `targetParts` of it, up to `largestPreferredBytes`: a file up to
   * 512 MiB keeps 8 MiB parts (a 48 MiB clip still goes six at once), 1 GiB goes in 64 of
   * 16 MiB, 4 GiB in 64 of 64 MiB. Beyond that the parts stay at 64 MiB and grow in number,
   * so that an interrupted upload loses at most the parts in flight × 64 MiB.
   */
  targetParts: 64,
  largestPreferredBytes: 64 * MIB,
} as const;

/**
 * Parts of one file a client sends at once: a few, as @uppy/aws-s3 (6) and the aws CLI (10) do;
 * `upload --part-concurrency` sets it. The parts of every file of a run share them. A part is
 * read as it is sent (a ring of 1 MiB slices, src/upload/send/parts.ts), so memory for parts is
 * this × 3 MiB whatever the part size; what the part size bounds is what an interrupted upload
 * sends again (this × part size at most).
 */
export const PART_CONCURRENCY = { default: 6, max: 16 } as const;

/**
 * When a file goes in parts. A client asks presign for parts from `askFromBytes` (below it a file
 * is one part anyway; the service decides); this server offers them only above
 * `offerAboveBytes`: a smaller file is sent faster as one PUT.
 */
export const MULTIPART_THRESHOLDS = {
  askFromBytes: PART_LIMITS.minPartBytes,
  offerAboveBytes: 16 * MIB,
} as const;

/** Whether a client asks presign for parts for a file of `fileSize` bytes. */
export function asksForParts(fileSize: number): boolean {
  return fileSize >= MULTIPART_THRESHOLDS.askFromBytes;
}

/** Whether the server offers parts for a file of `fileSize` bytes (when presign asks for them). */
export function offersParts(fileSize: number): boolean {
  return fileSize > MULTIPART_THRESHOLDS.offerAboveBytes;
}

/** The limits `planParts` works within: S3's, or a test's. */
export type PartLimits = { readonly [K in keyof typeof PART_LIMITS]: number };

export interface PartPlan {
  partSize: number;
  partCount: number;
}

/**
 * The part size and count for a file of `fileSize` bytes: the preferred size, doubled while the
 * file needs more than `targetParts` (up to `largestPreferredBytes`), then until it fits in
 * `maxParts`; never below `minPartBytes`. Throws when no allowed size fits (a file above
 * 10,000 × 5 GiB, far beyond any type's limit).
 */
export function planParts(fileSize: number, limits: PartLimits = PART_LIMITS): PartPlan {
  if (!Number.isSafeInteger(fileSize) || fileSize < 1)
    throw new Error(`a multipart upload needs a size ≥ 1, not ${fileSize}`);
  let partSize = Math.max(limits.preferredPartBytes, limits.minPartBytes);
  while (Math.ceil(fileSize / partSize) > limits.targetParts && partSize * 2 <= limits.largestPreferredBytes)
    partSize *= 2;
  while (Math.ceil(fileSize / partSize) > limits.maxParts && partSize < limits.maxPartBytes)
    partSize = Math.min(partSize * 2, limits.maxPartBytes);
  if (Math.ceil(fileSize / partSize) > limits.maxParts)
    throw new Error(`${fileSize} bytes do not fit in ${limits.maxParts} parts`);
  return partsOf(fileSize, partSize);
}

/** The plan of a file of `fileSize` bytes cut in parts of `partSize` (the last one shorter). */
export function partsOf(fileSize: number, partSize: number): PartPlan {
  return { partSize, partCount: Math.ceil(fileSize / partSize) };
}

/** The byte range [start, end) of part `partNumber` (1-based, as S3 numbers them). */
export function partRange(plan: PartPlan, fileSize: number, partNumber: number): { start: number; end: number } {
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > plan.partCount)
    throw new Error(`part ${partNumber} is not one of parts 1–${plan.partCount}`);
  const start = (partNumber - 1) * plan.partSize;
  return { start, end: Math.min(fileSize, start + plan.partSize) };
}

/** The exact size of part `partNumber` of a file of `fileSize` bytes, or null when the plan has no such part. */
export function partBytes(plan: PartPlan, fileSize: number, partNumber: number): number | null {
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > plan.partCount) return null;
  const { start, end } = partRange(plan, fileSize, partNumber);
  return end - start;
}
