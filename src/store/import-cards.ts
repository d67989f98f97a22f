/**
 * Bulk import through a card store's atomic insert (engine.ts `importCards`): the cards go in in
 * order without waiting for each write, up to `window` in flight, so they share the engine's
 * group commit (one journal write, or one transaction, for many cards); a card naming one still
 * in flight waits for it, since the store checks a previous card against durable ones.
 */
import { ImportError } from './engine.js';
import type { CardStore, StoredCard } from './store.js';

/** Cards kept in flight unless the engine gives its own window (PostgreSQL: its writer's queue). */
const WINDOW = 1000;

export async function importInOrder(
  store: CardStore,
  cards: AsyncIterable<StoredCard>,
  window = WINDOW,
): Promise<number> {
  let count = 0;
  let inFlight = new Map<string, Promise<unknown>>();
  const settle = async (): Promise<void> => {
    await Promise.all(inFlight.values());
    inFlight = new Map();
  };
  for await (const card of cards) {
    const index = count++;
    if (card.previous_card_id !== undefined && inFlight.has(card.previous_card_id)) await settle();
    const written = store.insert(card).catch((err: unknown) => {
      throw new ImportError(index, card, err);
    });
    // Awaited by settle(); until then a refusal must not count as unhandled.
    written.catch(() => undefined);
    inFlight.set(card.id, written);
    if (inFlight.size >= window) await settle();
  }
  await settle();
  return count;
}
