/**
 * `cards seed FILE` against a service: the file's cards created (src/cli/seeding.ts) unless they
 * are there already (src/cli/seed-record.ts), `--reset` to empty the service first, and Ctrl-C
 * reported with what was created.
 */
import { resolve } from 'node:path';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { parseJson, readInput } from '../../inputs.js';
import { planSeed } from '../../seed-plan.js';
import { alreadySeeded, notFound, recordPartial, seedRecord } from '../../seed-record.js';
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
  const file = options.file === '-' ? '-' : resolve(ctx.cwd, options.file);
  const record = seedRecord(ctx.home, client.url, file, text);
  if (options.reset) {
    await adminClient(ctx, options).json('POST', 'adminReset', {
      body: '{"confirm":"reset"}',
      type: 'application/json',
    });
    record.remove();
  } else {
    const done = await alreadySeeded(
      record.read(),
      planSeed(parseJson(text, `Seed file ${options.file}`)),
      {
        url: client.url,
        has: (card) => client.getCard(card.id, card.identity).then(() => true, notFound),
        hint: '`cards seed FILE --reset` empties the service and seeds the whole file',
      },
    );
    if (done) return done;
  }
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await seedCards(
      ctx,
      { ...options, text, signal: interrupt.signal },
      client,
      settings.wire.signer,
    );
    record.write(result.cards);
    return result;
  } catch (err) {
    recordPartial(record, err);
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
