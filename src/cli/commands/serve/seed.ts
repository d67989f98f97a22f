/**
 * `cards serve --seed FILE`: the cards of a seed file (`cards seed`'s format and runner,
 * seeding.ts) created through the server's own registry before it listens, so no client ever
 * sees a half-seeded service and no token is needed (the registry checks each card's identity
 * as the HTTP edge would, spec 5.3: the caller is the card's identity).
 */
import type { RawCard } from '../../../core/card.js';
import type { Prepare } from '../../../server/start.js';
import type { CommandContext } from '../../context.js';
import { DEFAULT_CONCURRENCY } from '../../flags.js';
import { seedCards, type SeedClient, type SeedResult } from '../../seeding.js';

/** The registry a starting server hands what runs before it listens (src/server/start.ts). */
type Registry = Parameters<Prepare>[0];

const rawCard = (json: string): RawCard => JSON.parse(json) as RawCard;

/** The registry behind the seed run's client calls; `url` names it in the summary. */
function registryClient(registry: Registry, url: string): SeedClient {
  return {
    url,
    createCard: async (card, identity) => rawCard((await registry.createCard(card, identity)).json),
    revokeWithCard: async (card, identity) =>
      rawCard((await registry.revokeCard(card, identity)).json),
    revokeById: async (id, identity) => rawCard((await registry.revokeCardById(id, identity)).json),
  };
}

/** The seed file's cards, `signer` the service's reserved signer, at `cards seed`'s pace. */
export function seedRegistry(
  ctx: CommandContext,
  registry: Registry,
  file: string,
  signer: string,
): Promise<SeedResult> {
  return seedCards(
    ctx,
    { file, concurrency: DEFAULT_CONCURRENCY },
    registryClient(registry, 'this server'),
    signer,
  );
}
