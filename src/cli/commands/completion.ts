// contentlib completion bash|zsh|fish: a completion script built from the registered commands
// and their flags, so it never drifts from the program.
import type { Command, Option } from 'commander';
import type { CliContext, GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { SHELLS } from '../flags.js';

export type Shell = (typeof SHELLS)[number];

interface Spec {
  name: string;
  description: string;
  flags: Array<{ long: string; description: string; choices?: readonly string[] }>;
  subcommands: string[];
}

function flagsOf(options: readonly Option[]): Spec['flags'] {
  return options
    .filter((o) => o.long && !o.hidden)
    .map((o) => ({ long: o.long!, description: o.description, ...(o.argChoices ? { choices: o.argChoices } : {}) }));
}

export function specOf(program: Command): { globals: Spec['flags']; commands: Spec[] } {
  return {
    globals: flagsOf(program.options),
    commands: program.commands.map((c) => ({
      name: c.name(),
      description: c.description(),
      flags: flagsOf(c.options),
      subcommands: c.commands.map((s) => s.name()),
    })),
  };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(program: Command): string {
  const { globals, commands } = specOf(program);
  const cases = commands
    .map(
      (c) =>
        `    ${c.name}) opts=${quote([...c.subcommands, ...c.flags.map((f) => f.long), ...globals.map((f) => f.long)].join(' '))} ;;`,
    )
    .join('\n');
  return `# bash completion for contentlib. Load with:  source <(contentlib completion bash)
_contentlib() {
  local cur cmd i opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) cmd="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$cmd" in
${cases}
    *) opts=${quote([...commands.map((c) => c.name), ...globals.map((f) => f.long)].join(' '))} ;;
  esac
  if [[ "$cur" == -* || -z "$cmd" ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") $(compgen -W "$opts" -- "$cur") )
  fi
}
complete -o default -F _contentlib contentlib
`;
}

function zsh(program: Command): string {
  // zsh runs the bash function through bashcompinit: one script to keep right, not two.
  return `#compdef contentlib
# zsh completion for contentlib. Load with:  source <(contentlib completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

function fish(program: Command): string {
  const { globals, commands } = specOf(program);
  const esc = (s: string) => s.replace(/'/g, "\\'");
  const lines = [
    '# fish completion for contentlib. Load with:  contentlib completion fish | source',
    'complete -c contentlib -f',
  ];
  for (const c of commands)
    lines.push(`complete -c contentlib -n '__fish_use_subcommand' -a ${c.name} -d '${esc(c.description)}'`);
  for (const f of globals) lines.push(`complete -c contentlib -l ${f.long.slice(2)} -d '${esc(f.description)}'`);
  for (const c of commands) {
    for (const s of c.subcommands)
      lines.push(`complete -c contentlib -n '__fish_seen_subcommand_from ${c.name}' -a ${s}`);
    for (const f of c.flags) {
      const choices = f.choices ? ` -x -a '${f.choices.join(' ')}'` : '';
      lines.push(
        `complete -c contentlib -n '__fish_seen_subcommand_from ${c.name}' -l ${f.long.slice(2)}${choices} -d '${esc(f.description)}'`,
      );
    }
    if (c.name === 'upload') lines.push(`complete -c contentlib -n '__fish_seen_subcommand_from upload' -F`);
  }
  return `${lines.join('\n')}\n`;
}

export function runCompletion(shell: string, program: Command): string {
  if (shell === 'bash') return bash(program);
  if (shell === 'zsh') return zsh(program);
  if (shell === 'fish') return fish(program);
  throw new UsageError(`No completion for the shell "${shell}".`, `Choose one of: ${SHELLS.join(', ')}`);
}

/** `contentlib completion <shell>`, for this program's commands and flags. */
export function completionCommand(program: Command) {
  return (ctx: CliContext, _globals: GlobalOptions, shell: string): void => {
    ctx.io.stdout.write(runCompletion(shell, program));
  };
}
