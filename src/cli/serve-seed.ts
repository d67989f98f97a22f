/**
 * `cards serve --seed FILE`: the cards of a seed file (`cards seed`'s format and planner,
 * commands/seed.ts) created through the server's own registry before it listens, so no client
 * ever sees a half-seeded service and no token is needed (the registry checks each card's
 * identity as the HTTP edge would, spec 5.3: the caller is the card's identity).
 */
import type { RawCard } from '../core/card.js';
import type { Registry } from '../registry/registry.js';
import { seed, type SeedClient, type SeedResult } from './commands/seed.js';
import type { CommandContext } from './context.js';

export type { SeedResult } from './commands/seed.js';

const rawCard = (json: string): RawCard => JSON.parse(json) as RawCard;

/** The registry behind the seed run's client calls; `url` names it in the summary. */
export function registryClient(registry: Registry, url: string): SeedClient {
  return {
    url,
    createCard: async (card, identity) => rawCard((await registry.createCard(card, identity)).json),
    revokeWithCard: async (card, identity) =>
      rawCard((await registry.revokeCard(card, identity)).json),
    revokeById: async (id, identity) => rawCard((await registry.revokeCardById(id, identity)).json),
  };
}

export function seedRegistry(
  ctx: CommandContext,
  registry: Registry,
  file: string,
  compat: string,
): Promise<SeedResult> {
  return seed(ctx, { file, compat }, registryClient(registry, 'this server'));
}
