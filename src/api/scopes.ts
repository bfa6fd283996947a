// What an API key may do (docs/api.md, Scopes): five scopes, the roles that name common sets of
// them, and parsing them from `--scope` / `--role`. The server checks one scope per endpoint
// (src/server/scopes.ts); the CLI names the missing one when a key is refused.

export const SCOPES = ['content:read', 'content:write', 'content:delete', 'audit:read', 'keys:admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope allows, in words (help, refusals). */
export const SCOPE_ALLOWS: Record<Scope, string> = {
  'content:read': 'list and read items and their file URLs',
  'content:write': 'upload (presign, complete) and edit items',
  'content:delete': 'delete items',
  'audit:read': "read the brand's audit log (contentlib log)",
  'keys:admin': "manage the brand's keys (and read its audit log)",
};

/**
 * Scopes that bring others with them. keys:admin reads the audit log, as it did before
 * audit:read existed (issue 35): the admin keys made then keep `contentlib log` without a
 * migration, and whoever manages keys sees what they did.
 */
export const IMPLIED: Readonly<Partial<Record<Scope, readonly Scope[]>>> = { 'keys:admin': ['audit:read'] };

/** What a key holding `held` may do: its scopes and those they imply, in the table's order. */
export function effectiveScopes(held: readonly Scope[]): Scope[] {
  return normalizeScopes([...held, ...held.flatMap((s) => IMPLIED[s] ?? [])]);
}

/** Whether a key holding `held` may do what `needed` allows (itself, or implied by one it holds). */
export function holds(held: readonly Scope[], needed: Scope): boolean {
  return held.includes(needed) || held.some((s) => IMPLIED[s]?.includes(needed));
}

/** Named sets of scopes: `keys create --role publisher`. */
export const ROLES = {
  reader: ['content:read'],
  publisher: ['content:read', 'content:write'],
  // Support and editors read the history of what they change, without managing keys.
  editor: ['content:read', 'content:write', 'content:delete', 'audit:read'],
  admin: [...SCOPES],
} as const satisfies Record<string, readonly Scope[]>;
export type Role = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/** Scopes in the table's order, each once: how they are stored, sent and shown. */
export function normalizeScopes(scopes: Iterable<Scope>): Scope[] {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
}

/** The scopes of `wanted` that `held` lacks. */
export function missingScopes(held: readonly Scope[], wanted: readonly Scope[]): Scope[] {
  return normalizeScopes(wanted.filter((s) => !holds(held, s)));
}

/** Stored as one text column: the scopes separated by spaces (OAuth's way). */
export function scopesToText(scopes: readonly Scope[]): string {
  return normalizeScopes(scopes).join(' ');
}

/** A stored scopes column back to scopes; unknown words (a newer version's) are dropped. */
export function scopesFromText(text: string): Scope[] {
  return normalizeScopes(text.split(/\s+/).filter(isScope));
}

/**
 * `--scope` values (repeatable, comma- or space-separated) and an optional `--role` as one set;
 * an unknown word is an Error naming the valid ones. Neither given: undefined.
 */
export function parseScopeFlags(values: readonly string[] = [], role?: string): Scope[] | undefined {
  const words = values.flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);
  if (words.length === 0 && role === undefined) return undefined;
  const scopes: Scope[] = [];
  if (role !== undefined) {
    if (!(role in ROLES)) throw new Error(`unknown role "${role}"; roles: ${ROLE_NAMES.join(', ')}`);
    scopes.push(...ROLES[role as Role]);
  }
  for (const w of words) {
    if (!isScope(w)) throw new Error(`unknown scope "${w}"; scopes: ${SCOPES.join(', ')}`);
    scopes.push(w);
  }
  return normalizeScopes(scopes);
}
