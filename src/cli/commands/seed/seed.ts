/**
 * `cards seed FILE` against a service: the file's cards created (src/cli/seeding.ts) unless they
 * are there already (src/cli/seed-record.ts), `--reset` to empty the service first, and Ctrl-C
 * reported with what was created.
 */
import { resolve } from 'node:path';
import type { CardsClient } from '../../../client/http-client.js';
import { CardsError, isCardsError } from '../../../core/errors.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { parseJson, readInput } from '../../inputs.js';
import { planSeed } from '../../seed-plan.js';
import { seedRecord, type SeedRecord } from '../../seed-record.js';
import {
  limiter,
  seedCards,
  type SeededCard,
  type SeedOptions,
  type SeedResult,
} from '../../seeding.js';
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
      ctx,
      client,
      record.read(),
      planSeed(parseJson(text, `Seed file ${options.file}`)),
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
    const cards = isCardsError(err)
      ? (err.partial?.cards as SeedResult['cards'] | undefined)
      : undefined;
    if (cards) record.write(Object.fromEntries(Object.entries(cards).filter(([, card]) => card)));
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/**
 * The recorded summary when every card of the plan is on the service already; undefined when
 * none is (nothing recorded, or the service was emptied since); a refusal when only some are.
 */
async function alreadySeeded(
  ctx: CommandContext,
  client: CardsClient,
  record: SeedRecord | undefined,
  plan: ReturnType<typeof planSeed>,
): Promise<SeedResult | undefined> {
  if (!record) return undefined;
  const limit = limiter(16);
  const recorded = Object.entries(record.cards);
  const present = await Promise.all(
    recorded.map(([, card]) =>
      limit(() =>
        client.getCard(card.id, card.identity).then(
          () => true,
          (err: unknown) => {
            if (isCardsError(err) && err.code === 'CARD_NOT_FOUND') return false;
            throw err;
          },
        ),
      ),
    ),
  );
  const there = present.filter(Boolean).length;
  if (there === 0) return undefined;
  const planned = plan.cards.length;
  if (there === recorded.length && plan.cards.every((card) => record.cards[card.name]))
    return {
      url: client.url,
      created: 0,
      alreadySeeded: true,
      revoked: 0,
      elapsedMs: 0,
      cards: Object.fromEntries(
        plan.cards.map((card) => [card.name, record.cards[card.name] as SeededCard]),
      ),
      identities: Object.fromEntries(
        [...plan.identities].map(([ref, entry]) => [ref, { ...entry, keyFile: null }]),
      ),
      signers: {},
    };
  throw new CardsError(
    'USAGE',
    `seed: ${there} of the ${planned} cards of this file are on ${client.url} already (a run stopped part-way, or the file changed); seeding again would start second chains.`,
    {
      hint: `\`cards seed ${ctx.cwd === '' ? '' : ''}FILE --reset\` empties the service and seeds the whole file`,
    },
  );
}
