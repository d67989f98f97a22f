/**
 * `cards search IDENTITY…`: an identity's cards (spec 4.3), many identities batched by 50 (the
 * stock client's limit), chains linked through previous_card_id, newest first, superseded
 * cards marked. Revoked chains are not returned by the service at all.
 */
import type { RawCard } from '../../core/card.js';
import { CardsError } from '../../core/errors.js';
import { viewCard, type CardView } from '../card-builder.js';
import { connect } from '../connection.js';
import type { CommandContext } from '../context.js';
import { readInput } from '../inputs.js';
import { resolveSettings, type ConnectionFlags } from '../settings.js';

export interface SearchOptions extends ConnectionFlags {
  identities: string[];
  /** One identity per line; `-` for stdin. */
  from?: string;
}

export interface ChainCard extends CardView {
  state: 'active' | 'superseded';
  card: RawCard;
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

export function linkChains(cards: readonly RawCard[]): ChainCard[][] {
  const views = cards.map((card) => ({ ...viewCard(card), card }));
  const byId = new Map(views.map((v) => [v.id, v]));
  const replaced = new Set(views.map((v) => v.previousCardId).filter((id) => id !== null));
  const heads = views.filter((v) => !replaced.has(v.id));
  const chains = heads.map((head) => {
    const chain: ChainCard[] = [];
    const seen = new Set<string>();
    for (let at: typeof head | undefined = head; at && !seen.has(at.id);) {
      seen.add(at.id);
      chain.push({ ...at, state: at === head ? 'active' : 'superseded' });
      at = at.previousCardId === null ? undefined : byId.get(at.previousCardId);
    }
    return chain;
  });
  return chains.sort((a, b) => (b[0]?.createdAt ?? 0) - (a[0]?.createdAt ?? 0));
}

export async function search(ctx: CommandContext, options: SearchOptions): Promise<SearchResult> {
  const identities = [...options.identities];
  if (options.from !== undefined) {
    const text = (await readInput(ctx, options.from, 'Identity list')).toString('utf8');
    identities.push(
      ...text
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    );
  }
  if (identities.length === 0)
    throw new CardsError('USAGE', 'search needs at least one IDENTITY.', {
      hint: 'for example `cards search alice bob`, or --from FILE with one identity per line',
    });
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  const cards = await client.searchCards(identities, settings.identity?.value ?? identities[0]);
  const grouped = new Map<string, RawCard[]>(identities.map((i) => [i, []]));
  for (const card of cards) grouped.get(viewCard(card).identity)?.push(card);
  const results = [...grouped].map(([identity, list]) => ({ identity, chains: linkChains(list) }));
  const all = results.flatMap((r) => r.chains.flat());
  return { results, total: all.length, active: all.filter((c) => c.state === 'active').length };
}
