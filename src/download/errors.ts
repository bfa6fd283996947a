// What can go wrong taking a file out of the library, beyond the HTTP failures of src/api/errors.ts.
// src/cli/error-messages.ts turns these into words and exit codes like any other typed error.

/** The bytes received are not the file the library describes (a part file is removed: fetch.ts). */
export class MismatchError extends Error {
  readonly kind: 'size' | 'sha256';
  readonly expected: string;
  readonly actual: string;
  readonly path: string;
  constructor(o: { kind: 'size' | 'sha256'; expected: string; actual: string; path: string }) {
    const what =
      o.kind === 'size'
        ? `${o.actual} bytes arrived where the library says ${o.expected}`
        : `its SHA-256 is ${o.actual}, the library's is ${o.expected}`;
    super(`${o.path}: ${what}`);
    this.name = 'MismatchError';
    this.kind = o.kind;
    this.expected = o.expected;
    this.actual = o.actual;
    this.path = o.path;
  }
}

/**
 * The SHA-256 of a file being written could not be computed: the worker thread that hashes it
 * (running-hash.ts) could not read the part file, or exited. The part file is kept: its bytes
 * may well be right, and a later run hashes them again.
 */
export class HashError extends Error {
  readonly code: string | undefined;
  constructor(why: string, code?: string) {
    super(`the SHA-256 could not be computed: ${why}`);
    this.name = 'HashError';
    this.code = code;
  }
}

/**
 * A line of an export folder's log (manifest.jsonl) names a path outside the folder: `..`, an
 * absolute path, or a symbolic link that leads out. The run stops before anything is read,
 * written or deleted for that line (src/fs/confine.ts judges the path).
 */
export class ExportLogError extends Error {
  readonly log: string;
  readonly line: number;
  constructor(o: { log: string; line: number; what: string }) {
    super(
      `${o.log} line ${o.line}: ${o.what}; nothing was read, written or deleted for it — remove that line or put the path right`,
    );
    this.name = 'ExportLogError';
    this.log = o.log;
    this.line = o.line;
  }
}
