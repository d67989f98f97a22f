/** `cards completion bash|zsh|fish`: a shell completion script made from the command tree. */
import { Argument, type Command } from 'commander';
import { declare } from '../../command.js';
import type { Shell } from './completion.js';

export default declare({
  name: 'completion',
  summary: 'Print a shell completion script (bash, zsh or fish).',
  // completion.ts's SHELLS, written out here so that --help loads nothing else.
  args: [new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish'])],
  examples: [
    'eval "$(cards completion bash)"          # in ~/.bashrc',
    'eval "$(cards completion zsh)"           # in ~/.zshrc',
    'cards completion fish > ~/.config/fish/completions/cards.fish',
  ],
  run: async (ctx, _options, [shell], command) => {
    const { completionScript } = await import('./completion.js');
    let root: Command = command;
    while (root.parent) root = root.parent;
    // Our own text, made from the command tree (nothing a card holds): written as is, not
    // through the views, which escape every string they are given (newlines included).
    ctx.stdout.write(completionScript(root, shell as Shell));
    return undefined;
  },
});
