/** `cards get ID`: a card, its state and its decoded snapshot. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { cardIdInput, connectionFlags } from '../../flags.js';
import { cardLines, stateColour } from '../../text.js';
import type { GetOptions, GetResult } from './get.js';

export default declare({
  name: 'get',
  summary: 'Fetch a card: its state (active, superseded, revoked) and decoded snapshot.',
  args: [
    cardIdInput(new Argument('<id>', 'card id (64 hex digits, or a unique prefix of 8 or more)')),
  ],
  flags: [
    connectionFlags(),
    new Option('--proof', 'save the card (ID.json) and its transparency-log proof (ID.proof) here'),
  ],
  help: `"superseded" and "revoked" both come with the service's superseded header; a card that
search lists is superseded (by the card named), one it does not list is in a revoked chain.
The card that revoked it, and the card that replaced it before, are named when they can be
seen: search leaves revoked chains out, so only chains revoked with this CLI's \`cards revoke\`
(noted in CARDS_HOME/revoked-chains.jsonl) show them. A card with an empty key is itself a
revocation.`,
  examples: ['cards get 8714f02c', 'cards get "$CARD_ID" --json | jq .state'],
  run: async (ctx, options: Omit<GetOptions, 'id'>, [id]) =>
    (await import('./get.js')).get(ctx, { ...options, id: id as string }),
  text: (r: GetResult, s) => {
    const by =
      r.state === 'superseded' && r.supersededBy
        ? s.dim(` by ${r.supersededBy}`)
        : r.state === 'revoked'
          ? s.dim(
              r.revokedBy
                ? ` by ${r.revokedBy}`
                : ` (${r.unknown ?? 'the revoking card is not known'})`,
            )
          : '';
    return [
      `${s.bold('card')} ${s.id(r.id)}  ${stateColour(r.state, s)}${by}`,
      ...(r.state === 'revoked' && r.supersededBy
        ? [`  superseded by ${s.id(r.supersededBy)} (before the chain was revoked)`]
        : []),
      ...cardLines(r.snapshot, s),
      ...(r.saved ? [s.dim(`  saved ${r.saved.card} and its log proof ${r.saved.proof}`)] : []),
    ].join('\n');
  },
});
