/**
 * What `build` and `create` share: the owner's key (--key FILE, the keystore's, or a new one on
 * --new-key or a yes) and the signed card made from the flags (spec 2.2, 2.3); the check of
 * `--previous` `rotate` shares too. No network.
 */
import { CardsError } from '../core/errors.js';
import { isCardId } from '../core/limits.js';
import { PROFILES, type ProfileName } from '../core/profile.js';
import { generatePrivateKey } from '../crypto/keys.js';
import type { CardPrivateKey } from '../crypto/signing-key.js';
import { buildCard, parseSigners, type BuiltCard } from './card-builder.js';
import type { CommandContext } from './context.js';
import { readCardKeyFile } from './inputs.js';
import { loadKey, storeKey } from './keystore.js';
import { shellQuote } from './shell-quote.js';
import { confirm, canPrompt } from './prompts.js';
import { requireIdentity, type ConnectionFlags } from './settings.js';

export interface BuildOptions extends ConnectionFlags {
  key?: string;
  previous?: string;
  signer?: string[];
  extra?: string[];
  /** UNIX seconds; default now. */
  createdAt?: number;
  newKey?: boolean;
  out?: string;
}

/**
 * `--previous`, the one check of every command that takes it (build, create, rotate): a card id
 * (spec 2.2, previous_card_id), lower-cased. A short id was made whole by the run funnel
 * (card-ids.ts) before the command ran; what is left is not an id at all.
 */
export function previousCardId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isCardId(value))
    throw new CardsError(
      'PREVIOUS_ID_INVALID',
      `--previous must be a card id (64 hex digits, or a unique prefix of 8 or more), got "${value}".`,
    );
  return value.toLowerCase();
}

/**
 * The owner's key: --key FILE, the keystore's, or (with --new-key or a yes) a new one. A new
 * key is not stored here: the caller stores it once the card passed validation.
 */
async function ownerKey(
  ctx: CommandContext,
  identity: string,
  options: { key?: string; newKey?: boolean },
): Promise<{ key: CardPrivateKey; isNew: boolean }> {
  if (options.key !== undefined) return { key: readCardKeyFile(ctx, options.key), isNew: false };
  const stored = loadKey(ctx.home, identity);
  if (stored) return { key: stored, isNew: false };
  if (options.newKey !== true) {
    if (!canPrompt(ctx))
      throw new CardsError(
        'FILE_NOT_FOUND',
        `No key for "${identity}" in the keystore (${ctx.home}).`,
        {
          hint: `run \`cards keygen --identity ${shellQuote(identity)}\` first, pass --key FILE, or pass --new-key`,
        },
      );
    const question = `No key for "${identity}" in the keystore. Make one now?`;
    if (!(await confirm(ctx, question, '--new-key'))) throw new CardsError('DECLINED');
  }
  return { key: generatePrivateKey(), isNew: true };
}

export async function prepareCard(
  ctx: CommandContext,
  options: BuildOptions,
): Promise<{ built: BuiltCard; identity: string; keyCreated: string | null }> {
  const identity = requireIdentity(options.identity, 'a card');
  const previous = previousCardId(options.previous);
  const createdAt = options.createdAt ?? Math.floor(ctx.now() / 1000);
  const signers = parseSigners(ctx, options.signer ?? [], options.extra ?? []);
  const { key, isNew } = await ownerKey(ctx, identity, options);
  const built = buildCard({
    identity,
    key,
    publicKey: key.publicKey.spki,
    createdAt,
    reservedSigner: PROFILES[options.compat as ProfileName].signer,
    others: signers.others,
    ...(signers.selfExtra ? { selfExtra: signers.selfExtra } : {}),
    ...(previous ? { previousCardId: previous } : {}),
  });
  // Only a card that passed every local check gets its new key written.
  const keyCreated = isNew ? storeKey(ctx.home, identity, key, false) : null;
  return { built, identity, keyCreated };
}
