/**
 * Bulk import through a card store's atomic insert (engine.ts `importCards`, and the admin API's
 * import): the cards go in in order without waiting for each write, up to `window` in flight, so
 * they share the engine's group commit (one journal write, or one transaction, for many cards);
 * a card naming one still in flight waits for it, since the store checks a previous card against
 * durable ones. A refusal is told once every insert in flight has settled, the first in order.
 */
import { ImportError } from './engine.js';
import type { CardStore, StoredCard } from './store.js';

/** Cards kept in flight unless the engine gives its own window (PostgreSQL: its writer's queue). */
const WINDOW = 1000;

export interface ImportInOrderOptions {
  /** Inserts in flight at once. */
  readonly window?: number;
  /** Whether to leave `card` out (stored already); asked once no card it names is in flight. */
  readonly skip?: (card: StoredCard) => Promise<boolean>;
  /** Whether the store's refusal `err` of `card` leaves it out all the same (stored meanwhile). */
  readonly skipRefused?: (card: StoredCard, err: unknown) => Promise<boolean>;
  /** Told as each card is stored. */
  readonly stored?: () => void;
}

/**
 * Inserts `cards` in order; resolves with how many were sent to the store (`stored` counts
 * those it took), or rejects with an ImportError
 * naming the first refused (cards before it and beside it in flight may be stored).
 */
export async function importInOrder(
  store: CardStore,
  cards: AsyncIterable<StoredCard>,
  options: ImportInOrderOptions = {},
): Promise<number> {
  const { window = WINDOW, skip, skipRefused, stored } = options;
  let count = 0;
  let inFlight = new Map<string, Promise<unknown>>();
  const settle = async (): Promise<void> => {
    const settled = await Promise.allSettled(inFlight.values());
    inFlight = new Map();
    const refused = settled.find((result) => result.status === 'rejected');
    if (refused) throw refused.reason;
  };
  try {
    for await (const card of cards) {
      if (
        inFlight.size >= window ||
        (card.previous_card_id !== undefined && inFlight.has(card.previous_card_id))
      )
        await settle();
      if (skip && (await skip(card))) continue;
      const index = count++;
      const written = store.insert(card).then(stored, async (err: unknown) => {
        if (skipRefused && (await skipRefused(card, err).catch(() => false))) return;
        throw new ImportError(index, card, err);
      });
      // Awaited by settle(); until then a refusal must not count as unhandled.
      written.catch(() => undefined);
      inFlight.set(card.id, written);
    }
    await settle();
  } catch (err) {
    await settle().catch(() => undefined);
    throw err;
  }
  return count;
}
