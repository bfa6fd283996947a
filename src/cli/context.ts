// What every command gets from the program: its I/O, environment, paths, clock and the signal
// that Ctrl-C aborts. Commands build their own narrower dependencies from it (API client etc.).
import type { Paths } from '../config/paths.js';
import type { IO } from './io.js';

export interface CliContext {
  io: IO;
  env: NodeJS.ProcessEnv;
  paths: Paths;
  /** The working directory: what relative paths on the command line are relative to. */
  cwd: string;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on the first SIGINT/SIGTERM: long commands stop cleanly and throw InterruptedError. */
  signal: AbortSignal;
  /** Registers a cleanup (close the embedded server, the HTTP dispatcher) that main runs before exiting. */
  onClose: (fn: () => Promise<void> | void) => void;
  /**
   * What error messages call a base URL that means nothing to a person (the embedded library's
   * fresh port): its data folder. openApi adds to it; main hands it to describeError.
   */
  targetNames: Map<string, string>;
}

/** Global flags, as commander parses them from the top-level program. */
export interface GlobalOptions {
  json?: boolean;
  /** `--json id,title`: only these fields (split off --json by src/cli/argv.ts). */
  jsonFields?: string;
  /** `--jq EXPR`: a jq filter over the JSON output (implies --json). */
  jq?: string;
  /** `-q/--quiet`: nothing on stderr but errors. */
  quiet?: boolean;
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
  embedded?: boolean;
  color?: boolean;
  verbose?: boolean;
  /** `--retry-for SECONDS`: how long to ride out a service that is down (src/cli/api.ts retryPolicy). */
  retryFor?: number;
}
