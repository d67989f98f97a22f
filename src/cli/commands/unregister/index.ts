/** `cards unregister`: an identity's live cards revoked, then its key deleted. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { connectionFlags } from '../../flags.js';
import type { UnregisterOptions, UnregisterResult } from './unregister.js';

export default declare({
  name: 'unregister',
  summary: "Revoke an identity's live cards, then delete its private key from the keystore.",
  flags: [
    connectionFlags(),
    new Option('--yes', 'do not ask for confirmation (required without a terminal)'),
    new Option('--keep-key', 'revoke the cards but keep the private key and its backups'),
  ],
  help: 'The key is deleted only after every revoke succeeded.',
  examples: ['cards unregister --identity alice', 'cards unregister --identity alice --yes --json'],
  run: async (ctx, options: UnregisterOptions) =>
    (await import('./unregister.js')).unregister(ctx, options),
  text: (r: UnregisterResult, s) =>
    [
      `${s.bold(r.identity)}: ${r.revoked.length} card(s) revoked`,
      ...r.revoked.map((id) => `  ${s.bad('revoked')} ${s.id(id)}`),
      r.keyRemoved ? `  private key removed: ${r.keyRemoved}` : s.dim('  no private key removed'),
      ...r.backupsRemoved.map((file) => `  key backup removed: ${file}`),
    ].join('\n'),
  hints: {
    CARD_NOT_FOUND:
      'check the identity as it was written (`cards key list` lists the keystore; `cards search IDENTITY` the live cards)',
  },
});
