/** `cards verify`: a card in the service's transparency log, the log never forked. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { cardIdInput, connectionFlags, logKeyFlag, repeatable } from '../../flags.js';
import type { VerifyOptions, VerifyResult } from './verify.js';

export default declare({
  name: 'verify',
  summary: "Check that a card is in the service's transparency log, and that the log never forked.",
  args: [
    cardIdInput(
      new Argument('<card>', 'a card id, or a card JSON file (its proof beside it: FILE.proof)'),
      'id-or-file',
    ),
  ],
  flags: [
    connectionFlags(),
    logKeyFlag('the log key `cards serve` prints (name+id+key)'),
    new Option('--witness <vkey>', 'require a cosignature by this witness; repeatable').argParser(
      repeatable,
    ),
    new Option('--proof <file>', 'the tlog-proof file (default: beside the card, or fetched)'),
  ],
  help: `Checks the card's id, its inclusion proof against a checkpoint signed by --log-key (cosigned
by each --witness), and that checkpoint's consistency with the last one accepted for the log
(kept in $CARDS_HOME/logs/), from tiles fetched from --url. A log that forked or rewound exits 8.`,
  examples: [
    'cards verify 8714f02c --log-key "$LOG_KEY"',
    'cards get "$CARD_ID" --proof && cards verify "$CARD_ID.json" --log-key "$LOG_KEY"',
  ],
  run: async (ctx, options: Omit<VerifyOptions, 'input'>, [input]) =>
    (await import('./verify.js')).verify(ctx, { ...options, input: input as string }),
  text: (r: VerifyResult, s) =>
    [
      `${s.ok('✔')} card ${s.id(r.id)} is entry ${r.index} of ${r.origin} (tree size ${r.treeSize})`,
      r.witnesses.length > 0 ? `  cosigned by ${r.witnesses.join(', ')}` : '',
      r.previousSize === null
        ? s.dim('  first checkpoint seen from this log: remembered')
        : `  consistent with the checkpoint accepted before (size ${r.previousSize})`,
    ]
      .filter(Boolean)
      .join('\n'),
});
