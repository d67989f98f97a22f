/** `cards search IDENTITY…`: identities' cards, chains linked, newest first. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { connectionFlags } from '../../flags.js';
import { keyTail, stateColour, when } from '../../text.js';
import type { SearchOptions, SearchResult } from './search.js';

export default declare({
  name: 'search',
  summary: "Find identities' cards: chains linked, newest first, superseded marked.",
  args: [new Argument('[identity...]', 'identities to look up')],
  flags: [
    connectionFlags('identity of the token used for the search (default: the first searched)'),
    new Option(
      '--from <file>',
      'read identities from FILE (one a line, blank lines and # comments skipped; - for stdin)',
    ),
  ],
  help: 'Many identities are sent in batches of 50. Revoked chains are not returned.',
  examples: [
    'cards search alice',
    'cards search alice bob carol --json',
    'cards search --from users.txt',
  ],
  run: async (ctx, options: Omit<SearchOptions, 'identities'>, [identities]) =>
    (await import('./search.js')).search(ctx, {
      ...options,
      identities: identities as unknown as string[],
    }),
  text: (r: SearchResult, s) => {
    const out: string[] = [];
    for (const { identity, chains } of r.results) {
      out.push(s.bold(identity) + (chains.length === 0 ? s.dim('  no cards') : ''));
      // Each chain under its own rule, its older cards marked under the live head.
      chains.forEach((chain, i) => {
        out.push(s.dim(`  ── chain ${i + 1} of ${chains.length}, ${chain.length} card(s)`));
        for (const card of chain) {
          const mark = card.state === 'active' ? s.ok('●') : s.dim('└');
          const state = stateColour(card.state, s) + ' '.repeat(10 - card.state.length);
          out.push(
            `  ${mark} ${s.id(card.id)}  ${state}  ${when(card.createdAt)}  ${s.dim(`key ${keyTail(card.publicKey)}`)}`,
          );
        }
      });
    }
    out.push(s.dim(`${r.active} active, ${r.total} in all`));
    return out.join('\n');
  },
});
