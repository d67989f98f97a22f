/** `cards revoke ID`: revoke a card by id, or with a revoking card. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { cardIdInput, connectionFlags, createdAtFlag } from '../../flags.js';
import type { RevokeOptions, RevokeResult } from './revoke.js';

export default declare({
  name: 'revoke',
  summary: 'Revoke a card by id, or send a revoking card with --with-card.',
  args: [
    cardIdInput(new Argument('<id>', 'card id to revoke (or a unique prefix of 8+ hex digits)')),
  ],
  flags: [
    connectionFlags(),
    new Option('--yes', 'do not ask for confirmation (required without a terminal)'),
    new Option('--with-card', 'build a revoking card (empty key, previous_card_id ID) and send it'),
    new Option(
      '--key <file>',
      'with --with-card: sign the revoking card with this key (default: keystore)',
    ),
    createdAtFlag('with --with-card: created_at of the revoking card'),
  ],
  examples: [
    'cards revoke 8714f02c',
    'cards revoke 8714f02c --yes --json',
    'cards revoke "$CARD_ID" --with-card --key alice.pem --yes',
  ],
  run: async (ctx, options: Omit<RevokeOptions, 'id'>, [id]) =>
    (await import('./revoke.js')).revoke(ctx, { ...options, id: id as string }),
  text: (r: RevokeResult, s) =>
    `${s.bad('revoked')} ${s.id(r.revoked)} (${r.identity})${r.revocation ? s.dim(` by revoking card ${r.revocation.id}`) : ''}`,
  hints: {
    CHAIN_REVOKED:
      'nothing to do: the chain is revoked already (`cards get ID` shows its state; revoked chains are left out of search)',
  },
});
