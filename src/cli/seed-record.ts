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
import { join } from 'node:path';
import { CardsError, isCardsError } from '../core/errors.js';
import { replaceFileSync } from '../io/fs-durable.js';
import type { planSeed } from './seed-plan.js';
import { limiter, type SeededCard, type SeedResult } from './seeding.js';

interface SeedRecord {
  readonly url: string;
  readonly file: string;
  readonly cards: Readonly<Record<string, SeededCard>>;
}

interface SeedRecordFile {
  read(): SeedRecord | undefined;
  write(cards: Readonly<Record<string, SeededCard>>): void;
  remove(): void;
}

/** The record of `file` (an absolute path, or `-` with the text read from stdin) on `url`. */
export function seedRecord(home: string, url: string, file: string, text: string): SeedRecordFile {
  // stdin has no path: its text names it.
  const source = file === '-' ? `stdin:${createHash('sha256').update(text).digest('hex')}` : file;
  const name = createHash('sha256').update(`${url}\n${source}`).digest('hex').slice(0, 32);
  const dir = join(home, 'seeded');
  const path = join(dir, `${name}.json`);
  return {
    read() {
      try {
        const record = JSON.parse(readFileSync(path, 'utf8')) as SeedRecord;
        return record.url === url && record.file === source ? record : undefined;
      } catch {
        return undefined;
      }
    },
    write(cards) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const record: SeedRecord = { url, file: source, cards };
      replaceFileSync(path, `${JSON.stringify(record)}\n`, 0o600);
    },
    remove: () => rmSync(path, { force: true }),
  };
}

/** Where the recorded cards are looked for: a service, or a starting server's own registry. */
interface SeedTarget {
  /** Names it in the summary and the refusal. */
  readonly url: string;
  /** Whether the card is there; CARD_NOT_FOUND answers false (notFound). */
  has(card: SeededCard): Promise<boolean>;
  /** How to start over, for the refusal of a partly seeded target. */
  readonly hint: string;
}

/** A lookup's refusal as absence: CARD_NOT_FOUND is false, anything else fails the run. */
export const notFound = (err: unknown): false => {
  if (isCardsError(err) && err.code === 'CARD_NOT_FOUND') return false;
  throw err;
};

/**
 * The recorded summary when every card of the plan is on the target already; undefined when
 * none is (nothing recorded, or the target was emptied since); a refusal when only some are.
 */
export async function alreadySeeded(
  record: SeedRecord | undefined,
  plan: ReturnType<typeof planSeed>,
  target: SeedTarget,
): Promise<SeedResult | undefined> {
  if (!record) return undefined;
  const limit = limiter(16);
  const recorded = Object.values(record.cards);
  const present = await Promise.all(recorded.map((card) => limit(() => target.has(card))));
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

/** What a failed run created (the error's partial summary), recorded so a rerun refuses it. */
export function recordPartial(record: SeedRecordFile, err: unknown): void {
  const cards = isCardsError(err)
    ? (err.partial?.cards as SeedResult['cards'] | undefined)
    : undefined;
  if (cards) record.write(Object.fromEntries(Object.entries(cards).filter(([, card]) => card)));
}
