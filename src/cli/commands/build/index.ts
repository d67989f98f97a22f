/** `cards build`: a card built and signed offline. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { buildFlags, compatFlag, identityFlag } from '../../flags.js';
import { cardLines } from '../../text.js';
import type { BuildOptions, BuildResult } from './build.js';

export default declare({
  name: 'build',
  summary: 'Build and sign a card offline; print its wire JSON. No network.',
  flags: [
    identityFlag(),
    buildFlags(),
    compatFlag(),
    new Option('--out <file>', 'write the card JSON to FILE'),
  ],
  examples: [
    'cards build --identity alice > card.json',
    `cards build --identity alice --signer app=app.pem --extra app='{"role":"admin"}'`,
    'cards build --identity alice --previous "$CARD_ID" --key new.pem | cards publish -',
  ],
  run: async (ctx, options: BuildOptions) => (await import('./build.js')).build(ctx, options),
  text: (r: BuildResult, s) =>
    r.file
      ? [`${s.bold('card')} ${s.id(r.id)} written to ${r.file}`, ...cardLines(r.snapshot, s)].join(
          '\n',
        )
      : JSON.stringify(r.card, null, 2),
});
