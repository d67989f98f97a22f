/**
 * What `get` and `revoke` share: a card id checked as the user typed it, and a card fetched by
 * id with the stock client's check that the service returned the card asked for.
 */
import type { RawCard } from '../core/card.js';
import { CardsError } from '../core/errors.js';
import { isCardId } from '../core/limits.js';
import type { CardsClient } from '../client/http-client.js';
import { viewCard } from './card-builder.js';

export function requireCardId(id: string): string {
  if (!isCardId(id))
    throw new CardsError(
      'CARD_ID_INVALID',
      `"${id}" is not a card id (64 hexadecimal characters).`,
      {
        hint: 'ids are printed by `cards create` and `cards search IDENTITY`',
      },
    );
  return id.toLowerCase();
}

/** Fetches a card and checks that its id is the one asked for (as the stock client does). */
export async function fetchCard(
  client: CardsClient,
  id: string,
): Promise<{ card: RawCard; superseded: boolean }> {
  const fetched = await client.getCard(id);
  const view = viewCard(fetched.card);
  if (view.id !== id)
    throw new CardsError(
      'VERIFICATION_FAILED',
      `The service returned card ${view.id} when asked for ${id}.`,
    );
  return fetched;
}
