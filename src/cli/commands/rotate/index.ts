/** `cards rotate`: an identity's live card replaced by one for a new key. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { cardIdInput, connectionFlags, keyTypeFlag } from '../../flags.js';
import { cardLines } from '../../text.js';
import type { RotateOptions, RotateResult } from './rotate.js';

export default declare({
  name: 'rotate',
  summary: "Replace an identity's live card with one for a new key; swap the key once accepted.",
  flags: [
    connectionFlags(),
    cardIdInput(
      new Option('--previous <card-id>', 'the live card to replace, when the identity has several'),
    ),
    keyTypeFlag("the new key's type (default: the replaced key's)"),
    new Option('--prune', "remove the identity's key backups of earlier rotations"),
  ],
  help: `Finds the live card (search), makes a new key, publishes the replacement (previous_card_id =
the live card) and only then puts the new key in the keystore; the old key is kept beside it
as <key>.<time>.bak until --prune. The new key is of the replaced keystore key's type (a P-256 card
stays P-256; Ed25519 when the keystore has no key) unless --type names one.`,
  examples: [
    'cards rotate --identity alice',
    'cards rotate --identity alice --type p256',
    'cards rotate --identity alice --prune --json',
  ],
  run: async (ctx, options: RotateOptions) => (await import('./rotate.js')).rotate(ctx, options),
  text: (r: RotateResult, s) =>
    [
      `${s.ok('rotated')} ${s.bold(r.identity)}: ${s.id(r.id)} replaces ${s.id(r.replaced)}`,
      ...cardLines(r.snapshot, s),
      `  new key in   ${r.keyFile}`,
      r.backup
        ? `  old key kept ${r.backup} ${s.dim('(until --prune)')}`
        : s.dim('  no old key in the keystore'),
      ...r.pruned.map((file) => s.dim(`  pruned       ${file}`)),
    ].join('\n'),
});
