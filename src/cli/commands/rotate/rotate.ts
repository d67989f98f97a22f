/**
 * `cards rotate --identity ID`: replaces the identity's live card with one for a new key (spec
 * 4.1, previous_card_id; the stock clients' rotate). The new key waits in a pending file and
 * takes the old one's place in the keystore only once the service accepted its card; the old
 * key stays as a dated backup until `--prune`. The new key is of the replaced key's type (a
 * P-256 card stays P-256; Ed25519 without a keystore key) unless `--type` names one.
 */
import type { RawCard } from '../../../core/card.js';
import { encodeBase64 } from '../../../core/encoding.js';
import { CardsError, reworded } from '../../../core/errors.js';
import { generateCardKey, keyTypeOf, type KeyTypeName } from '../../../crypto/signing-key.js';
import { buildCard, viewCard, type CardView } from '../../card-builder.js';
import { previousCardId } from '../../card-prepare.js';
import { liveCards } from '../../chain-relations.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import {
  dropPendingKey,
  pruneBackups,
  swapInPendingKey,
  writePendingKey,
} from '../../key-backups.js';
import { keyFile, loadKey } from '../../keystore.js';
import { notSent, surelyNotStored } from '../../not-stored.js';
import { shellQuote } from '../../shell-quote.js';
import { requireIdentity, resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface RotateOptions extends ConnectionFlags {
  /** The live card to replace, when the identity has several. */
  previous?: string;
  prune?: boolean;
  /** The new key's type (one of KEY_TYPES, its flag's choices); default the replaced key's. */
  type?: string;
}

export interface RotateResult {
  identity: string;
  replaced: string;
  id: string;
  card: RawCard;
  snapshot: CardView;
  keyFile: string;
  /** The new key's type. */
  type: KeyTypeName;
  backup: string | null;
  pruned: string[];
  url: string;
}

export async function rotate(ctx: CommandContext, options: RotateOptions): Promise<RotateResult> {
  const settings = resolveSettings(ctx, options);
  const identity = requireIdentity(settings.identity?.value, 'rotate');
  const previous = previousCardId(options.previous);
  const client = connect(ctx, settings);
  const live = await liveCards(client, identity);
  const oldKey = loadKey(ctx.home, identity);
  const head = pickLiveCard(
    identity,
    live,
    previous,
    oldKey && encodeBase64(oldKey.publicKey.spki),
  );

  const type = newKeyType(options.type, oldKey && keyTypeOf(oldKey), oldKey !== undefined);
  const key = generateCardKey(type);
  const built = buildCard({
    identity,
    key,
    publicKey: key.publicKey.spki,
    createdAt: Math.floor(ctx.now() / 1000),
    reservedSigner: settings.wire.signer,
    previousCardId: head,
  });
  // Written before the request, so that a card the service accepted never loses its key.
  const pending = writePendingKey(ctx.home, identity, key);
  let stored: RawCard;
  try {
    stored = await client.createCard(built.card, identity);
  } catch (err) {
    if (!(err instanceof CardsError)) throw err;
    const notStored = surelyNotStored(err);
    if (notStored) dropPendingKey(ctx.home, identity);
    const unchanged = notSent(err)
      ? ' Nothing reached the service; the keystore was not changed.'
      : ' The keystore was not changed.';
    const note = notStored
      ? unchanged
      : ` The keystore was not changed; the new key is kept in ${pending} in case the service stored the card (\`cards search ${shellQuote(identity)}\` tells).`;
    throw reworded(err, `${err.message}${note}`, { cause: err.cause });
  }
  if (stored.content_snapshot !== built.card.content_snapshot)
    throw new CardsError('SERVICE_REFUSED', 'The service returned another card than the one sent.');
  const backup = swapInPendingKey(ctx.home, identity, ctx.now());
  const pruned = options.prune ? pruneBackups(ctx.home, identity, backup) : [];
  return {
    identity,
    replaced: head,
    id: built.id,
    card: stored,
    snapshot: viewCard(stored),
    keyFile: keyFile(ctx.home, identity),
    type,
    backup,
    pruned,
    url: client.url,
  };
}

/** `--type`, else the keystore key's type, else Ed25519 (no keystore key). */
function newKeyType(
  given: string | undefined,
  stored: KeyTypeName | undefined,
  hasStored: boolean,
): KeyTypeName {
  if (given !== undefined) return given as KeyTypeName;
  if (stored !== undefined) return stored;
  if (!hasStored) return 'ed25519';
  throw new CardsError(
    'USAGE',
    "The keystore key is an RSA key of a size --type does not offer; name the new key's type.",
    { hint: 'pass --type (ed25519, p256, rsa2048, rsa3072, rsa4096 or rsa8192)' },
  );
}

/** The live card to replace: the only one, the one given, or the one of the keystore key. */
function pickLiveCard(
  identity: string,
  live: readonly CardView[],
  previous: string | undefined,
  storedKey: string | undefined,
): string {
  if (previous !== undefined) {
    if (live.some((h) => h.id === previous)) return previous;
    throw new CardsError(
      'PREVIOUS_NOT_FOUND',
      `Card ${previous} is not a live card of "${identity}".`,
      {
        hint: `\`cards search ${shellQuote(identity)}\` lists its live cards`,
      },
    );
  }
  if (live.length === 0)
    throw new CardsError('CARD_NOT_FOUND', `"${identity}" has no live card to rotate.`, {
      hint: `publish a first card with \`cards create --identity ${shellQuote(identity)} --new-key\``,
    });
  const mine = live.length === 1 ? live : live.filter((h) => h.publicKey === storedKey);
  if (mine.length === 1) return (mine[0] as CardView).id;
  throw new CardsError(
    'USAGE',
    `"${identity}" has ${live.length} live cards; which one to replace?`,
    {
      hint: `pass --previous CARD_ID (\`cards search ${shellQuote(identity)}\` lists them)`,
    },
  );
}
