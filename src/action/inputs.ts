// The action's inputs, as GitHub hands them to a step: INPUT_<NAME> in the environment (the name
// upper-cased, spaces as underscores, hyphens kept). action.yml passes each one on explicitly
// (with underscores), since a composite action's steps do not get them by themselves. Pure: environment in, the
// command line of `contentlib upload` and the policies out.

export type NoFilesPolicy = 'warn' | 'error' | 'ignore';

export interface ActionInputs {
  paths: string[];
  manifest?: string;
  baseUrl: string;
  apiKey: string;
  type?: string;
  strict: boolean;
  /** update-metadata: items already in the library get the local metadata's differences (else they are only reported). */
  updateMetadata: boolean;
  concurrency?: string;
  /** Extra flags for `contentlib upload`, split like a shell would split plain words and quotes. */
  flags: string[];
  ifNoFilesFound: NoFilesPolicy;
}

/** A wrong input: said in the log and the job summary, exit 2 (as the CLI's usage errors). */
export class InputError extends Error {}

/**
 * INPUT_BASE-URL as GitHub names it for a JavaScript action, or INPUT_BASE_URL: action.yml passes
 * the inputs with underscores, since not every shell passes a hyphenated variable on.
 */
function input(env: Record<string, string | undefined>, name: string): string {
  const upper = name.replace(/ /g, '_').toUpperCase();
  return (env[`INPUT_${upper}`] ?? env[`INPUT_${upper.replace(/-/g, '_')}`] ?? '').trim();
}

function bool(env: Record<string, string | undefined>, name: string): boolean {
  const raw = input(env, name).toLowerCase();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new InputError(`The input ${name} must be true or false, not "${raw}".`);
}

/**
 * Words of a flags string: spaces separate, '…' and "…" keep spaces, a backslash escapes the next
 * character. No expansion of any kind: the words go to the CLI as they are, never to a shell.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new InputError(`The input flags has an unclosed ${quote}.`);
  if (inWord) words.push(word);
  return words;
}

export function readInputs(env: Record<string, string | undefined>): ActionInputs {
  const paths = input(env, 'paths')
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  const manifest = input(env, 'manifest') || undefined;
  if (paths.length === 0 && !manifest) throw new InputError('Give the input paths (one per line) or manifest.');
  const policy = (input(env, 'if-no-files-found') || 'warn').toLowerCase();
  if (policy !== 'warn' && policy !== 'error' && policy !== 'ignore')
    throw new InputError(`The input if-no-files-found must be warn, error or ignore, not "${policy}".`);
  return {
    paths,
    ...(manifest ? { manifest } : {}),
    baseUrl: input(env, 'base-url'),
    apiKey: input(env, 'api-key'),
    ...(input(env, 'type') ? { type: input(env, 'type') } : {}),
    strict: bool(env, 'strict'),
    updateMetadata: bool(env, 'update-metadata'),
    ...(input(env, 'concurrency') ? { concurrency: input(env, 'concurrency') } : {}),
    flags: splitWords(input(env, 'flags')),
    ifNoFilesFound: policy,
  };
}

/** The arguments of `contentlib upload --json` for these inputs. */
export function uploadArgs(i: ActionInputs): string[] {
  return [
    'upload',
    '--json',
    ...(i.manifest ? ['--manifest', i.manifest] : []),
    ...(i.type ? ['--type', i.type] : []),
    ...(i.strict ? ['--strict'] : []),
    ...(i.updateMetadata ? ['--update-metadata'] : []),
    ...(i.concurrency ? ['--concurrency', i.concurrency] : []),
    ...i.flags,
    // After `--`, a path that starts with a dash is still a path.
    ...(i.paths.length > 0 ? ['--', ...i.paths] : []),
  ];
}
