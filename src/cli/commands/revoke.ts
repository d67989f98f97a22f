/**
 * `cards revoke ID`: revoke by id (spec 4.5), or with --with-card send a revoking card (empty
 * public key, previous_card_id ID; spec 4.4) signed with the owner's key when one is at hand.
 * The token is minted for the card's identity (spec 1.7), read from the card itself. Asks
 * first on a terminal unless --yes; without a terminal, --yes is required.
 */
import type { RawCard } from '../../core/card.js';
import { CardsError } from '../../core/errors.js';
import { buildCard, viewCard } from '../card-builder.js';
import { connect } from '../connection.js';
import type { CommandContext } from '../context.js';
import { parsePositiveInt, readPrivateKeyFile } from '../inputs.js';
import { loadKey } from '../keystore.js';
import { confirm } from '../prompts.js';
import { resolveSettings, type ConnectionFlags } from '../settings.js';
import { fetchCard, requireCardId } from './get.js';

export interface RevokeOptions extends ConnectionFlags {
  id: string;
  yes?: boolean;
  withCard?: boolean;
  key?: string;
  createdAt?: string;
}

export interface RevokeResult {
  revoked: string;
  identity: string;
  method: 'by-id' | 'with-card';
  /** The revoking card, when it was built here (--with-card). */
  revocation: { id: string; card: RawCard } | null;
}

export async function confirmOrYes(
  ctx: CommandContext,
  yes: boolean | undefined,
  question: string,
): Promise<void> {
  if (yes === true) return;
  if (!(await confirm(ctx, question, 'pass --yes to go ahead without asking')))
    throw new CardsError('DECLINED');
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
  if (!options.withCard) {
    await client.revokeById(id, view.identity);
    return { revoked: id, identity: view.identity, method: 'by-id', revocation: null };
  }
  const key =
    options.key !== undefined
      ? readPrivateKeyFile(ctx, options.key)
      : loadKey(ctx.home, view.identity);
  const createdAt =
    options.createdAt === undefined
      ? Math.floor(ctx.now() / 1000)
      : parsePositiveInt(options.createdAt, '--created-at');
  const built = buildCard({
    identity: view.identity,
    previousCardId: id,
    createdAt,
    reservedSigner: settings.wire.signer,
    ...(key ? { key } : {}),
  });
  const stored = await client.revokeWithCard(built.card, view.identity);
  return {
    revoked: id,
    identity: view.identity,
    method: 'with-card',
    revocation: { id: viewCard(stored).id, card: stored },
  };
}
