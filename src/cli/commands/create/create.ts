/**
 * `cards create` builds and publishes a card (spec 4.1); `cards publish` publishes a card
 * built earlier. Both check that the service returned the same snapshot (the stock client's
 * "Received invalid card" check) and show the stored card with its id.
 */
import type { RawCard } from '../../../core/card.js';
import { CardsError, reworded } from '../../../core/errors.js';
import { cardFromJson, viewCard, type CardView } from '../../card-builder.js';
import { prepareCard, type BuildOptions } from '../../card-prepare.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { parseJson, readInput } from '../../inputs.js';
import { removeKey } from '../../keystore.js';
import { surelyNotStored } from '../../not-stored.js';
import { shellQuote } from '../../shell-quote.js';
import { plural } from '../../text.js';
import { requireIdentity, resolveSettings, type ConnectionFlags } from '../../settings.js';
import { liveCards } from '../../chain-relations.js';
import type { CardsClient } from '../../../client/http-client.js';

export interface PublishResult {
  id: string;
  card: RawCard;
  snapshot: CardView;
  url: string;
  keyCreated: string | null;
}

export interface CreateOptions extends BuildOptions {
  /** Start another chain beside the identity's live one (another device: spec 2.2). */
  newChain?: boolean;
}

export async function create(ctx: CommandContext, options: CreateOptions): Promise<PublishResult> {
  const settings = resolveSettings(ctx, options);
  const client = connect(ctx, settings);
  if (options.previous === undefined && options.newChain !== true)
    await refuseSecondChain(client, requireIdentity(options.identity, 'a card'));
  const { built, identity, keyCreated } = await prepareCard(ctx, options);
  let stored: RawCard;
  try {
    stored = await client.createCard(built.card, identity);
  } catch (err) {
    throw keyCreated === null ? err : forgetNewKey(ctx, identity, keyCreated, err);
  }
  return { ...checkStored(built.card, stored), url: client.url, keyCreated };
}

/**
 * A card without --previous starts a new chain (spec 2.2). When the identity has a live card
 * already, that is rarely what was meant: it is refused, naming the card and the ways on (a
 * replacement, or --new-chain for a second device's chain).
 */
async function refuseSecondChain(client: CardsClient, identity: string): Promise<void> {
  const heads = await liveCards(client, identity);
  const [live] = heads;
  if (!live) return;
  const name = shellQuote(identity);
  throw new CardsError(
    'IDENTITY_HAS_CARD',
    `"${identity}" has a live card already: ${live.id}${heads.length > 1 ? ` (and ${plural(heads.length - 1, 'more live chain')})` : ''}. A card without --previous would start a second chain beside it.`,
    {
      hint: `replace it with \`cards rotate --identity ${name}\` (a new key) or \`cards create --identity ${name} --previous ${live.id}\`; pass --new-chain for a second chain (another device)`,
    },
  );
}

/**
 * The card made with a new key was not accepted: when the service surely did not
 * store it (a refusal, or no connection at all) the key is removed again; when it may have
 * (no answer in time, a 5xx) the key is kept, and the message says where and why.
 */
function forgetNewKey(ctx: CommandContext, identity: string, file: string, err: unknown): unknown {
  if (!(err instanceof CardsError)) return err;
  const notStored = surelyNotStored(err);
  if (notStored) removeKey(ctx.home, identity);
  const note = notStored
    ? `The new key made for "${identity}" was removed again: nothing was written.`
    : `The new key made for "${identity}" is kept in ${file}: the service may have stored the card (\`cards search ${shellQuote(identity)}\` tells).`;
  return reworded(err, `${err.message} ${note}`, { cause: err.cause });
}

export interface PublishOptions extends ConnectionFlags {
  file?: string;
}

export async function publish(
  ctx: CommandContext,
  options: PublishOptions,
): Promise<PublishResult> {
  const settings = resolveSettings(ctx, options);
  const where = options.file === undefined || options.file === '-' ? 'stdin' : options.file;
  if (where === 'stdin' && ctx.stdin.isTTY)
    throw new CardsError('USAGE', 'publish needs a card FILE, or a card piped on stdin.', {
      hint: 'for example `cards publish card.json` or `cards build --identity alice | cards publish -`',
    });
  const bytes = await readInput(ctx, options.file ?? '-', 'Card file');
  const card = cardFromJson(parseJson(bytes.toString('utf8'), `Card ${where}`), `Card ${where}`);
  const view = viewCard(card);
  const client = connect(ctx, settings);
  const stored = await client.createCard(card, view.identity);
  return { ...checkStored(card, stored), url: client.url, keyCreated: null };
}

function checkStored(sent: RawCard, stored: RawCard): Omit<PublishResult, 'url' | 'keyCreated'> {
  if (stored.content_snapshot !== sent.content_snapshot)
    throw new CardsError(
      'SERVICE_REFUSED',
      'The service returned a card with another snapshot than the one sent.',
    );
  const snapshot = viewCard(stored);
  return { id: snapshot.id, card: stored, snapshot };
}
