/**
 * `cards serve --seed FILE`: the cards of a seed file (`cards seed`'s format and runner,
 * seeding.ts) created through the server's own registry before it listens, so no client ever
 * sees a half-seeded service and no token is needed (the registry checks each card's identity
 * as the HTTP edge would, spec 5.3: the caller is the card's identity). On a store that outlives
 * the server, what was seeded is recorded as `cards seed` records it (seed-record.ts), by store:
 * a restart with the same file creates nothing new and says so.
 */
import type { RawCard } from '../../../core/card.js';
import type { Prepare } from '../../../server/start.js';
import type { CommandContext } from '../../context.js';
import { DEFAULT_CONCURRENCY } from '../../flags.js';
import { readInput } from '../../inputs.js';
import { seedOnce } from '../../seed-record.js';
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

/** A store target as a record names it: a PostgreSQL URL without its password. */
function storeName(target: string): string {
  try {
    const url = new URL(target);
    url.password = '';
    return `store ${url.toString()}`;
  } catch {
    return `store ${target}`;
  }
}

/**
 * The seed file's cards, `signer` the service's reserved signer, at `cards seed`'s pace; `store`
 * the store target, undefined for a memory store (every start begins empty: nothing recorded).
 */
export async function seedRegistry(
  ctx: CommandContext,
  registry: Registry,
  file: string,
  signer: string,
  store: string | undefined,
): Promise<SeedResult> {
  const client = registryClient(registry, 'this server');
  if (store === undefined)
    return seedCards(ctx, { file, concurrency: DEFAULT_CONCURRENCY }, client, signer);
  const text = (await readInput(ctx, file, 'Seed file')).toString('utf8');
  const target = {
    recordName: storeName(store),
    url: client.url,
    get: (card: { id: string }) => registry.getCard(card.id),
    hint: 'empty the store (`cards reset`), or start with a new one, and seed again',
  };
  return seedOnce(ctx, file, text, target, () =>
    seedCards(ctx, { file, text, concurrency: DEFAULT_CONCURRENCY }, client, signer),
  );
}
