/**
 * `cards search IDENTITY…`: an identity's cards (spec 4.3), many identities batched by 50 (the
 * stock client's limit), chains linked through previous_card_id, newest first, superseded
 * cards marked. Revoked chains are not returned by the service at all.
 */
import type { RawCard } from '../../../core/card.js';
import { CardsError } from '../../../core/errors.js';
import type { CardState } from '../../../core/chain.js';
import { viewCard, type CardView } from '../../card-builder.js';
import { linkViewed } from '../../chain-relations.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { readInput } from '../../inputs.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface SearchOptions extends ConnectionFlags {
  identities: string[];
  /** One identity per line; `-` for stdin. */
  from?: string;
}

/** A listed card, its state from the core chain rules (search lists live chains only). */
interface ChainCard extends CardView {
  state: CardState;
  card: RawCard;
}

/** Chains newest card first, ordered by their newest card, newest first. */
function chainsOf(cards: readonly RawCard[]): ChainCard[][] {
  const chains = linkViewed(cards).map((chain) =>
    chain.map(({ card: { revoking: _revoking, ...view }, state }): ChainCard => ({
      ...view,
      state,
    })),
  );
  return chains.sort((a, b) => (b[0]?.createdAt ?? 0) - (a[0]?.createdAt ?? 0));
}

export interface IdentityCards {
  identity: string;
  /** Each chain newest first; chains ordered by their newest card, newest first. */
  chains: ChainCard[][];
}

export interface SearchResult {
  results: IdentityCards[];
  total: number;
  active: number;
}

export async function search(ctx: CommandContext, options: SearchOptions): Promise<SearchResult> {
  const identities = [...options.identities];
  if (options.from !== undefined) {
    const text = (await readInput(ctx, options.from, 'Identity list')).toString('utf8');
    identities.push(
      ...text
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#')),
    );
  }
  if (identities.some((identity) => identity === ''))
    throw new CardsError('USAGE', 'An identity to search for cannot be empty.', {
      hint: 'for example `cards search alice`; in a --from file, blank lines and # comments are skipped',
    });
  if (identities.length === 0)
    throw new CardsError('USAGE', 'search needs at least one IDENTITY.', {
      hint: 'for example `cards search alice bob`, or --from FILE with one identity per line',
    });
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  const cards = await client.searchCards(identities, settings.identity?.value ?? identities[0]);
  const grouped = new Map<string, RawCard[]>(identities.map((i) => [i, []]));
  for (const card of cards) grouped.get(viewCard(card).identity)?.push(card);
  const results = [...grouped].map(([identity, list]) => ({ identity, chains: chainsOf(list) }));
  const all = results.flatMap((r) => r.chains.flat());
  return { results, total: all.length, active: all.filter((c) => c.state === 'active').length };
}
