/**
 * `cards seed FILE` against a service: the file's cards created (src/cli/seeding.ts) unless they
 * are there already (src/cli/seed-record.ts), `--reset` to empty the service first, and Ctrl-C
 * reported with what was created (a second one: and what was sent with no answer read).
 */
import { adminClient, resetServer, type AdminFlags } from '../../admin-access.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { readInput } from '../../inputs.js';
import { seedOnce } from '../../seed-record.js';
import { seedCards, type SeedOptions, type SeedResult } from '../../seeding.js';
import { resolveSettings } from '../../settings.js';

/**
 * `cards seed FILE`: the seed file's cards created against the service of the settings, unless
 * they are there already (seed-record.ts); Ctrl-C stops starting new cards and reports what was
 * created.
 */
export async function seed(
  ctx: CommandContext,
  options: SeedOptions & AdminFlags,
): Promise<SeedResult> {
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  const text = (await readInput(ctx, options.file, 'Seed file')).toString('utf8');
  const target = {
    recordName: client.url,
    url: client.url,
    get: (card: { id: string; identity: string }) => client.getCard(card.id, card.identity),
    hint: '`cards seed FILE --reset` empties the service and seeds the whole file',
    ...(options.reset && {
      reset: async () => {
        await resetServer(adminClient(ctx, options));
      },
    }),
  };
  return seedOnce(ctx, options.file, text, target, async () => {
    const interrupt = new AbortController();
    const abandon = new AbortController();
    // The cards in flight are answered within --timeout; until then the person learns why
    // nothing ends yet. A second Ctrl-C closes the connections: the summary names the cards
    // whose answer was not read.
    const onSecond = (): void => {
      abandon.abort();
      client.close();
    };
    const onSigint = (): void => {
      interrupt.abort();
      process.once('SIGINT', onSecond);
      ctx.stderr.write(
        'seed: stopping: no new cards; waiting for the answers to those in flight (Ctrl-C again stops at once)\n',
      );
    };
    process.once('SIGINT', onSigint);
    try {
      return await seedCards(
        ctx,
        { ...options, text, signal: interrupt.signal, abandon: abandon.signal },
        client,
        settings.wire.signer,
      );
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGINT', onSecond);
    }
  });
}
