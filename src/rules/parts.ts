// How a large file is cut into parts for a multipart upload (issue 28): S3's limits, which the
// disk store follows too so that a client sees one behaviour. The part size starts at a
// preferred size and doubles until the file fits in the store's part count; it is never below
// the store's minimum (every part but the last must be at least that big on S3). Every part's
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
} as const;

/**
 * Parts of one file a client sends at once: a few, as @uppy/aws-s3 (6) and the aws CLI (10) do;
 * `upload --part-concurrency` sets it. The parts of every file of a run share them, so memory for
 * parts is at most part size × this.
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

export interface PartPlan {
  partSize: number;
  partCount: number;
}

/**
 * The part size and count for a file of `fileSize` bytes: the preferred size, doubled until the
 * file fits in `maxParts`; never below `minPartBytes`. Throws when no allowed size fits (a file
 * above 10,000 × 5 GiB, far beyond any type's limit).
 */
export function planParts(fileSize: number, limits: typeof PART_LIMITS = PART_LIMITS): PartPlan {
  if (!Number.isSafeInteger(fileSize) || fileSize < 1)
    throw new Error(`a multipart upload needs a size ≥ 1, not ${fileSize}`);
  let partSize = Math.max(limits.preferredPartBytes, limits.minPartBytes);
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
