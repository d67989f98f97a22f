/** `cards seed FILE`: many cards from a seed file. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { adminTokenFlag, concurrencyFlag, connectionFlags } from '../../flags.js';
import type { SeedOptions, SeedResult } from '../../seeding.js';
import { stateColour } from '../../text.js';

export default declare({
  name: 'seed',
  summary: 'Create many cards from a seed file: identities, chains, revocations, references.',
  args: [new Argument('<file>', 'seed file (JSON; - for stdin)')],
  flags: [
    connectionFlags(),
    concurrencyFlag(),
    new Option('--save-keys', "save each identity's newest live key into the keystore"),
    new Option('--force', 'with --save-keys: replace keys already in the keystore'),
    new Option(
      '--reset',
      'empty the service first (admin API: cards reset), then seed the whole file',
    ),
    adminTokenFlag(),
  ],
  help: `The format is in docs/cli.md ("Seed files"); fixtures/seed-example.json is an example. Cards
are created in file order, each after what it names; a field the format does not have is
refused, naming the one meant ("replace": did you mean "replaces"?).

A rerun creates nothing new: what a run created is recorded in the keystore home (seeded/), and
when every card of the file is on the service already the rerun says so and exits 0. When only
some are (a run stopped part-way, or the file grew), it refuses; --reset starts over. Ctrl-C
stops starting new cards, waits for those in flight and prints what was created (exit 130).`,
  examples: [
    'cards seed fixtures/seed-example.json',
    'cards seed big.json --concurrency 32 --json > ids.json',
  ],
  run: async (ctx, options: Omit<SeedOptions, 'file'>, [file]) =>
    (await import('./seed.js')).seed(ctx, { ...options, file: file as string }),
  text: (r: SeedResult, s) =>
    [
      r.alreadySeeded
        ? `${s.ok('already seeded')}: the ${Object.keys(r.cards).length} card(s) of this file are on ${r.url}; nothing created (--reset starts over)`
        : `${s.ok('seeded')} ${r.created} card(s), ${r.revoked} revoked, ${Object.keys(r.identities).length} identities in ${(r.elapsedMs / 1000).toFixed(2)} s`,
      ...Object.entries(r.cards)
        .slice(0, 20)
        .map(([name, c]) => `  ${name.padEnd(20)} ${s.id(c.id)}  ${stateColour(c.state, s)}`),
      ...(Object.keys(r.cards).length > 20
        ? [s.dim(`  … and ${Object.keys(r.cards).length - 20} more (--json lists every id)`)]
        : []),
    ].join('\n'),
});
