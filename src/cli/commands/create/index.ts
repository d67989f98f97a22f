/** `cards create` (build and publish) and `cards publish` (a card built earlier). */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { buildFlags, connectionFlags } from '../../flags.js';
import { cardLines } from '../../text.js';
import type { CreateOptions, PublishOptions, PublishResult } from './create.js';

const created = (r: PublishResult, s: Parameters<typeof cardLines>[1]): string =>
  [
    `${s.ok('created')} ${s.id(r.id)}`,
    ...cardLines(r.snapshot, s),
    ...(r.keyCreated ? [s.dim(`  new key saved to ${r.keyCreated}`)] : []),
  ].join('\n');

export default [
  declare({
    name: 'create',
    summary: 'Build, sign and publish a card; print the stored card with its id.',
    flags: [
      buildFlags(),
      connectionFlags(),
      new Option(
        '--new-chain',
        'start another chain when the identity has a live card (another device); without it, that is refused',
      ),
    ],
    examples: [
      'cards create --identity alice --new-key',
      'cards create --identity alice --previous 8714f02c --key rotated.pem --json',
      'cards create --identity bob --url https://cards.example.com --app-key app.pem',
    ],
    run: async (ctx, options: CreateOptions) => (await import('./create.js')).create(ctx, options),
    text: created,
  }),
  declare({
    name: 'publish',
    summary: 'Publish a card built earlier (`cards build`).',
    args: [new Argument('[file]', 'card JSON file, or - for stdin (default)')],
    flags: [connectionFlags()],
    examples: ['cards publish card.json', 'cards build --identity alice | cards publish - --json'],
    run: async (ctx, options: PublishOptions, [file]) =>
      (await import('./create.js')).publish(ctx, {
        ...options,
        ...(file !== undefined && { file }),
      }),
    text: created,
  }),
];
