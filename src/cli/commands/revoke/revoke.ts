/**
 * `cards revoke ID`: revoke by id (spec 4.5), or with --with-card send a revoking card (empty
 * public key, previous_card_id ID; spec 4.4) signed with the owner's key when one is at hand.
 * The token is minted for the card's identity (spec 1.7), read from the card itself. Asks
 * first on a terminal unless --yes; without a terminal, --yes is required. The revoking card the
 * service returns (spec 4.4; `cards serve` returns it for 4.5 too) is reported, and the revoked
 * chain is noted (revocation-notes.ts) so that `get` can still name its relations.
 */
import type { RawCard } from '../../../core/card.js';
import { CardsError } from '../../../core/errors.js';
import { buildCard, viewCard } from '../../card-builder.js';
import { fetchCard, requireCardId } from '../../card-fetch.js';
import { linkViewed, viewed } from '../../chain-relations.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { readCardKeyFile } from '../../inputs.js';
import { loadKey } from '../../keystore.js';
import { confirmOrYes } from '../../prompts.js';
import { noteRevokedChain } from '../../revocation-notes.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface RevokeOptions extends ConnectionFlags {
  id: string;
  yes?: boolean;
  withCard?: boolean;
  key?: string;
  createdAt?: number;
}

export interface RevokeResult {
  revoked: string;
  identity: string;
  method: 'by-id' | 'with-card';
  /** The revoking card the service returned (null when its answer held none: spec 4.5). */
  revocation: { id: string; card: RawCard } | null;
}

export async function revoke(ctx: CommandContext, options: RevokeOptions): Promise<RevokeResult> {
  const id = requireCardId(options.id);
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  const { card } = await fetchCard(client, id);
  const view = viewCard(card);
  if (view.publicKey === '')
    throw new CardsError(
      'CHAIN_REVOKED',
      `Card ${id} is itself a revoking card; there is nothing to revoke.`,
    );
  await confirmOrYes(
    ctx,
    options.yes,
    `Revoke card ${id} of "${view.identity}"? This cannot be undone.`,
  );
  // The chain as search lists it now, noted with the revoking card once the revoke succeeded.
  const listed = await client.searchCards([view.identity], view.identity);
  const chain =
    linkViewed(listed).find((line) => line.some((linked) => linked.card.id === id)) ?? [];
  const finish = (method: RevokeResult['method'], returned: RawCard | null): RevokeResult => {
    const revoking = returned ? viewed(returned) : undefined;
    // Only a revoking card that names this card counts (the spec gives 4.5 no body shape).
    const revocation =
      revoking?.revoking && revoking.previousCardId === id
        ? { id: revoking.id, card: revoking.card }
        : null;
    const cards = chain.map((linked) => linked.card.card).reverse();
    noteRevokedChain(ctx.home, client.url, view.identity, [
      ...(cards.length ? cards : [card]),
      ...(revocation ? [revocation.card] : []),
    ]);
    return { revoked: id, identity: view.identity, method, revocation };
  };
  if (!options.withCard) return finish('by-id', await client.revokeById(id, view.identity));
  const key =
    options.key !== undefined
      ? readCardKeyFile(ctx, options.key)
      : loadKey(ctx.home, view.identity);
  const createdAt = options.createdAt ?? Math.floor(ctx.now() / 1000);
  const built = buildCard({
    identity: view.identity,
    previousCardId: id,
    createdAt,
    reservedSigner: settings.wire.signer,
    ...(key ? { key } : {}),
  });
  return finish('with-card', await client.revokeWithCard(built.card, view.identity));
}
