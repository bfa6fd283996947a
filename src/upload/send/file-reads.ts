// What a sender of a file's bytes (the parts, ./parts.ts, or the single PUT, ./put.ts) tells as it
// reads the file: the hash fed from those bytes (./hash-fed.ts) listens. Its own module, types
// only, so that the senders need not import the hash.

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What a sender tells as it reads the file (./parts.ts and ./put.ts `reads`); a single PUT is one
 * "part" of the whole file.
 */
export interface FileReads {
  /** The ranges about to be read, before the first read: what of these is not yet read is awaited, not read. */
  planned(ranges: readonly ByteRange[]): void;
  /**
   * One try of a part begins reading `range` from its start: `slice` is told each slice as it is
   * read (its buffer is reused later), `end` once the try is over (stored or not).
   */
  reading(range: ByteRange): { slice(offset: number, bytes: Buffer): void; end(stored: boolean): void };
  /** Nothing more will be read by the sender (all stored, or it failed or stopped): the hash reads what is left. */
  done(): void;
}
