/**
 * What `cards seed` created from a seed file on a service, kept in the keystore home
 * (`seeded/<sha-256 of the service URL and the file>.json`, mode 0600), so a rerun creates
 * nothing new: when every card the file names is on the service already, the rerun says so and
 * prints the recorded summary; when only some are (a run stopped part-way, a file grown since),
 * it refuses rather than start a second chain for an identity, and `--reset` starts over.
 * `cards serve --seed` keeps one for its store the same way.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CardsError, isCardsError } from '../core/errors.js';
import { replaceFileSync } from '../io/fs-durable.js';
import type { CommandContext } from './context.js';
import { DEFAULT_CONCURRENCY } from './flags.js';
import { parseJson } from './inputs.js';
import { homeDocumentPath } from './json-document.js';
import { planSeed } from './seed-plan.js';
import { limiter, type SeededCard, type SeedResult } from './seeding.js';

interface SeedRecord {
  readonly url: string;
  readonly file: string;
  readonly cards: Readonly<Record<string, SeededCard>>;
}

/** The record of `file` (`-`: the text read from stdin) on the target `url` names. */
function seedRecord(ctx: CommandContext, url: string, file: string, text: string) {
  // stdin has no path: its text names it.
  const source =
    file === '-'
      ? `stdin:${createHash('sha256').update(text).digest('hex')}`
      : resolve(ctx.cwd, file);
  const path = homeDocumentPath(ctx.home, 'seeded', `${url}\n${source}`, 32);
  return {
    read(): SeedRecord | undefined {
      try {
        const record = JSON.parse(readFileSync(path, 'utf8')) as SeedRecord;
        return record.url === url && record.file === source ? record : undefined;
      } catch {
        return undefined;
      }
    },
    write(cards: SeedRecord['cards']): void {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const record: SeedRecord = { url, file: source, cards };
      replaceFileSync(path, `${JSON.stringify(record)}\n`, 0o600);
    },
    remove: () => rmSync(path, { force: true }),
  };
}

/** Where the recorded cards are looked for: a service, or a starting server's own registry. */
interface SeedTarget {
  /** The target as its record names it: the service's URL, or the store's. */
  readonly recordName: string;
  /** Names it in the summary and the refusal. */
  readonly url: string;
  /** Reads the card: CARD_NOT_FOUND is its absence, any other refusal fails the run. */
  get(card: SeededCard): Promise<unknown>;
  /** How to start over, for the refusal of a partly seeded target. */
  readonly hint: string;
  /** Empties the target first (`cards seed --reset`): the record is dropped, the whole file seeded. */
  readonly reset?: () => Promise<void>;
}

/** A lookup's refusal as absence: CARD_NOT_FOUND is false, anything else fails the run. */
const notFound = (err: unknown): false => {
  if (isCardsError(err) && err.code === 'CARD_NOT_FOUND') return false;
  throw err;
};

/** `file`'s cards (its `text`) on `target`, created by `run` unless they are there already. */
export async function seedOnce(
  ctx: CommandContext,
  file: string,
  text: string,
  target: SeedTarget,
  run: () => Promise<SeedResult>,
): Promise<SeedResult> {
  const record = seedRecord(ctx, target.recordName, file, text);
  if (target.reset) {
    await target.reset();
    record.remove();
  } else {
    const plan = planSeed(parseJson(text, `Seed file ${file}`));
    const done = await alreadySeeded(record.read(), plan, target);
    if (done) return done;
  }
  try {
    const result = await run();
    record.write(result.cards);
    return result;
  } catch (err) {
    // What a failed run created (the error's partial summary) is recorded: a rerun refuses it.
    const cards = isCardsError(err)
      ? (err.partial?.cards as SeedResult['cards'] | undefined)
      : undefined;
    if (cards) record.write(Object.fromEntries(Object.entries(cards).filter(([, card]) => card)));
    throw err;
  }
}

/**
 * The recorded summary when every card of the plan is on the target already; undefined when
 * none is (nothing recorded, or the target was emptied since); a refusal when only some are.
 */
async function alreadySeeded(
  record: SeedRecord | undefined,
  plan: ReturnType<typeof planSeed>,
  target: SeedTarget,
): Promise<SeedResult | undefined> {
  if (!record) return undefined;
  const limit = limiter(DEFAULT_CONCURRENCY);
  const recorded = Object.values(record.cards);
  const present = await Promise.all(
    recorded.map((card) => limit(() => target.get(card).then(() => true, notFound))),
  );
  const there = present.filter(Boolean).length;
  if (there === 0) return undefined;
  if (there === recorded.length && plan.cards.every((card) => record.cards[card.name]))
    return {
      url: target.url,
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
    `seed: ${there} of the ${plan.cards.length} cards of this file are on ${target.url} already (a run stopped part-way, or the file changed); seeding again would start second chains.`,
    { hint: target.hint },
  );
}
