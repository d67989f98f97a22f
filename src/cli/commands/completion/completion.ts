/**
 * Shell completion scripts for `cards completion bash|zsh|fish`, generated from commander's
 * command tree, so that a new command or flag completes without touching this file. The global
 * flags complete after every command. Pure: a Command in, the script's text out.
 */
import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** Command path below `cards`, e.g. "key public"; "" for `cards` itself. */
  readonly path: string;
  readonly command: Command;
  readonly subcommands: string[];
  readonly flags: string[];
  /** Values an argument or option accepts (commander choices). */
  readonly choices: string[];
}

const flagsOf = (command: Command): string[] =>
  command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);

/** The command tree; below the root, each command completes the root's flags too (the globals). */
function walk(command: Command, path = '', globals: string[] = []): Node[] {
  const visible = command.commands.filter((c) => !(c as { _hidden?: boolean })._hidden);
  const flags = [...globals, ...flagsOf(command)];
  const inherited =
    path === '' ? flagsOf(command).filter((f) => !/^-(V|-version)$/.test(f)) : globals;
  const choices = command.registeredArguments.flatMap((a) => a.argChoices ?? []);
  const node: Node = {
    path,
    command,
    subcommands: visible.map((c) => c.name()),
    flags: [...flags, '--help'],
    choices,
  };
  return [
    node,
    ...visible.flatMap((c) => walk(c, path ? `${path} ${c.name()}` : c.name(), inherited)),
  ];
}

const single = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(program: Command): string {
  const nodes = walk(program);
  const paths = nodes.filter((n) => n.path !== '').map((n) => single(n.path));
  const cases = nodes.map(
    (n) =>
      `    ${single(n.path)}) words=${single([...n.subcommands, ...n.choices, ...n.flags].join(' '))} ;;`,
  );
  // After a flag that takes a value: its choices, or files (-o default) for a free value.
  const options = nodes.flatMap((n) => n.command.options);
  const valued = new Map<string, string>();
  for (const o of options)
    if (o.long && (o.required || o.optional)) valued.set(o.long, (o.argChoices ?? []).join(' '));
  const values = [...valued].map(([flag, words]) => `    ${flag}) words=${single(words)} ;;`);
  return `# cards completion for bash: eval "$(cards completion bash)" in ~/.bashrc
_cards() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    next="\${path:+$path }$w"
    case "$next" in
      ${paths.join('|')}) path="$next" ;;
    esac
  done
  case "$path" in
${cases.join('\n')}
  esac
  case "$prev" in
${values.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cards cards
`;
}

function zsh(program: Command): string {
  // zsh runs the bash function through its own bash-completion layer.
  return `#compdef cards
# cards completion for zsh: eval "$(cards completion zsh)" in ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

function fish(program: Command): string {
  const lines = [
    '# cards completion for fish: cards completion fish > ~/.config/fish/completions/cards.fish',
  ];
  lines.push('complete -c cards -f');
  for (const node of walk(program)) {
    const words = node.path === '' ? [] : node.path.split(' ');
    const last = words.at(-1);
    const inside =
      node.path === ''
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${last}${node.subcommands.length ? `; and not __fish_seen_subcommand_from ${node.subcommands.join(' ')}` : ''}`;
    for (const sub of node.command.commands)
      lines.push(
        `complete -c cards -n ${single(inside)} -a ${sub.name()} -d ${single(sub.description())}`,
      );
    if (node.choices.length)
      lines.push(`complete -c cards -n ${single(inside)} -a ${single(node.choices.join(' '))}`);
    for (const option of node.command.options) {
      const long = option.long?.replace(/^--/, '');
      if (!long) continue;
      const takes = option.required || option.optional;
      const values = option.argChoices ? ` -a ${single(option.argChoices.join(' '))}` : '';
      // The root's flags are global: they complete before and after any command.
      const where = node.path === '' ? '' : ` -n ${single(inside)}`;
      lines.push(
        `complete -c cards${where} -l ${long}${takes ? ' -r' : ''}${values} -d ${single(option.description)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: Shell): string {
  return { bash, zsh, fish }[shell](program);
}
