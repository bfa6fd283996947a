// `--json id,title` (gh's field selection) next to `--json` alone (whole objects, as always):
// commander would read `show --json <id>` as the field list `<id>`. So the word after --json is a
// field list only when it looks like one — names separated by commas, or a single known field
// name; not a command name (`--json ls`) nor a path that exists — and is handed over as
// --json-fields. `--json=id,title` is always a field list. A word one typo away from a known
// field (`--json titel`: a letter wrong, missing, added, or two swapped) is taken as a field list too, so that it gets the field error
// with its "did you mean title?" rather than "too many arguments"; not one of hexadecimal
// digits only, which may be a short id (`show --json facade`).
import { nearest } from '../text/suggest.js';

const FIELD_LIST = /^[A-Za-z][A-Za-z0-9_]*(,[A-Za-z][A-Za-z0-9_]*)*$/;

export function splitJsonFields(
  argv: readonly string[],
  pathExists: (p: string) => boolean,
  commands: readonly string[] = [],
  knownFields: readonly string[] = [],
): string[] {
  const nearField = (word: string) => !/^[0-9a-f]+$/i.test(word) && nearest(word, knownFields, 1).length > 0;
  const isFieldList = (word: string) =>
    FIELD_LIST.test(word) &&
    (word.includes(',') || knownFields.includes(word) || nearField(word)) &&
    !commands.includes(word) &&
    !pathExists(word);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--json=')) {
      out.push('--json', '--json-fields', arg.slice('--json='.length));
      continue;
    }
    const next = argv[i + 1];
    if (arg === '--json' && next !== undefined && isFieldList(next)) {
      out.push('--json', '--json-fields', next);
      i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}
