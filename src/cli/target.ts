// Where a command's requests go, said once on stderr (`→ embedded library at …`), and the rule
// that keeps automation from writing into a throwaway library: with no remote configured, a
// command that writes refuses unless a person is at a terminal or the embedded library was
// chosen on purpose.
import type { IO } from './io.js';
import { AuthError } from './errors.js';

/** What the NDJSON `planned` and `summary` events carry as `target`, and `auth status` prints. */
export type TargetInfo = { kind: 'remote'; baseUrl: string; profile?: string } | { kind: 'embedded'; dataDir: string };

/** The one line naming the target: `→ embedded library at ~/…` or `→ profile acme at https://…`. */
export function targetLine(t: TargetInfo): string {
  if (t.kind === 'embedded') return `→ embedded library at ${t.dataDir}`;
  return t.profile ? `→ profile ${t.profile} at ${t.baseUrl}` : `→ ${t.baseUrl}`;
}

/** CI is set to anything but an explicit no (GitHub, GitLab, CircleCI … all set CI=true). */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

/** Why this run is automation (no person to notice a fallback), or undefined at a terminal. */
export function automationReason(
  io: Pick<IO, 'stdinIsTTY' | 'stdoutIsTTY'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (inCi(env)) return 'CI is set';
  if (!io.stdinIsTTY) return 'standard input is not a terminal';
  if (!io.stdoutIsTTY) return 'standard output is not a terminal';
  return undefined;
}

/** CONTENTLIB_EMBEDDED=1 (or true/yes): the embedded library is the intended target. */
export function embeddedByEnv(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes)$/i.test(env.CONTENTLIB_EMBEDDED?.trim() ?? '');
}

/**
 * The refusal for a write that would land in an embedded library nobody chose: in automation
 * this is a job whose credentials are missing, so it is an authentication failure (exit 4), which
 * a script can tell from refused files (2).
 */
export function noRemoteError(reason: string): AuthError {
  return new AuthError(
    `No remote library is configured and ${reason}: refusing to write into the embedded library on this machine, where nobody would find it.`,
    'Configure a remote: set CONTENTLIB_BASE_URL and CONTENTLIB_API_KEY, or run contentlib login (then --profile NAME).\n' +
      'To use the embedded library on purpose: pass --embedded, set CONTENTLIB_EMBEDDED=1, or run contentlib config set embedded true.',
  );
}
