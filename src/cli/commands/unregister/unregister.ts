/**
 * `cards unregister --identity ID`: what the stock clients' unregister does (Cards spec 1.6;
 * e3kit's unregister): find the identity's live cards, revoke each by id, then remove the
 * identity's private key (and its backups of earlier rotations) from the keystore, and only once
 * every revoke succeeded.
 */
import { CardsError } from '../../../core/errors.js';
import { liveCards } from '../../chain-relations.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { listBackups, pruneBackups } from '../../key-backups.js';
import { keyFile, loadKey, removeKey } from '../../keystore.js';
import { confirmOrYes } from '../../prompts.js';
import { requireIdentity, resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface UnregisterOptions extends ConnectionFlags {
  yes?: boolean;
  keepKey?: boolean;
}

export interface UnregisterResult {
  identity: string;
  revoked: string[];
  keyRemoved: string | null;
  /** Its key backups from earlier rotations, removed with the key. */
  backupsRemoved: string[];
}

export async function unregister(
  ctx: CommandContext,
  options: UnregisterOptions,
): Promise<UnregisterResult> {
  const settings = resolveSettings(ctx, options);
  const identity = requireIdentity(settings.identity?.value, 'unregister');
  const client = connect(ctx, settings);
  const live = (await liveCards(client, identity)).map((card) => card.id);
  const hasKey = loadKey(ctx.home, identity) !== undefined;
  const backups = options.keepKey ? [] : listBackups(ctx.home, identity);
  if (live.length === 0 && !hasKey && backups.length === 0)
    throw new CardsError(
      'CARD_NOT_FOUND',
      `"${identity}" has no live cards and no key in the keystore.`,
    );
  const what = [
    live.length ? `revoke ${live.length} card(s)` : '',
    hasKey && !options.keepKey ? 'delete its private key' : '',
    backups.length ? `delete ${backups.length} key backup(s) of earlier rotations` : '',
  ].filter(Boolean);
  await confirmOrYes(
    ctx,
    options.yes,
    `Unregister "${identity}": ${what.join(' and ')}? This cannot be undone.`,
  );
  for (const id of live) await client.revokeById(id, identity);
  let keyRemoved: string | null = null;
  let backupsRemoved: string[] = [];
  if (!options.keepKey) {
    if (hasKey) {
      keyRemoved = keyFile(ctx.home, identity);
      removeKey(ctx.home, identity);
    }
    // An earlier key of an unregistered identity is no use to keep, and a secret all the same.
    backupsRemoved = pruneBackups(ctx.home, identity, null);
  }
  return { identity, revoked: live, keyRemoved, backupsRemoved };
}
