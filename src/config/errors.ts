// What goes wrong choosing a library or reading the config: said in words, with what to do.
// src/cli/error-messages.ts maps it to a message and an exit code, like every other error.

export class ConfigError extends Error {
  /** What the user can do about it ("Create it with: contentlib login --profile work"). */
  readonly hint: string | undefined;
  /**
   * `usage`: something typed or set is wrong (a flag, an environment variable, a profile name);
   * `unusable`: the config file or its folder cannot be read or written;
   * `auth`: credentials are missing (a base URL and no key): exit 4, as a wrong key is.
   */
  readonly kind: 'usage' | 'unusable' | 'auth';
  constructor(kind: 'usage' | 'unusable' | 'auth', message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
    this.kind = kind;
    this.hint = hint;
  }
}

/** A usage mistake: the message and what to type instead. */
export const configUsage = (message: string, hint?: string) => new ConfigError('usage', message, hint);
