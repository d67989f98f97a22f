/**
 * `cards get ID`: the card, its state and its decoded snapshot (spec 4.2, section 3).
 *
 * The superseded header says only that some card names this one as previous_card_id. A
 * replacement stays findable by search; a revoking card does not (revoked chains are left out
 * of search, spec 4.3 rule 2). So: header set and a successor found by search → superseded;
 * header set and none found → revoked. A card with an empty key is itself a revoking card.
 */
import type { RawCard } from '../../core/card.js';
import { decodeSnapshot } from '../../core/snapshot.js';
import type { CardsClient } from '../../client/http-client.js';
import { viewCard, type CardView } from '../card-builder.js';
import { fetchCard, requireCardId } from '../card-fetch.js';
import { connect } from '../connection.js';
import type { CommandContext } from '../context.js';
import { resolveSettings, type ConnectionFlags } from '../settings.js';

export type CardState = 'active' | 'superseded' | 'revoked' | 'revocation';

export interface GetOptions extends ConnectionFlags {
  id: string;
}

export interface GetResult {
  id: string;
  state: CardState;
  /** The card that replaced this one, when it is superseded and the successor is live. */
  supersededBy: string | null;
  card: RawCard;
  snapshot: CardView;
}

export async function cardState(
  client: CardsClient,
  id: string,
  card: RawCard,
  superseded: boolean,
): Promise<{ state: CardState; supersededBy: string | null }> {
  const snapshot = decodeSnapshot(card.content_snapshot, 'any');
  if (snapshot.publicKey.byteLength === 0) return { state: 'revocation', supersededBy: null };
  if (!superseded) return { state: 'active', supersededBy: null };
  const chain = await client.searchCards([snapshot.identity], snapshot.identity);
  const successor = chain.map((c) => viewCard(c)).find((v) => v.previousCardId === id);
  return successor
    ? { state: 'superseded', supersededBy: successor.id }
    : { state: 'revoked', supersededBy: null };
}

export async function get(ctx: CommandContext, options: GetOptions): Promise<GetResult> {
  const id = requireCardId(options.id);
  const client = connect(ctx, resolveSettings(ctx, options));
  const { card, superseded } = await fetchCard(client, id);
  const { state, supersededBy } = await cardState(client, id, card, superseded);
  return { id, state, supersededBy, card, snapshot: viewCard(card) };
}
