/**
 * `cards log audit --url URL`: recomputes the whole tree from the entry bundles, checks its root
 * against the signed checkpoint and every hash tile the server serves against the recomputed
 * one; then checks that every entry is a card the registry serves (GET by the id the entry
 * hashes to) and, when the server has the admin list (GET /_cards/cards), that every listed
 * card is the log entry at its sequence number. Problems are listed and exit 5; entries that do
 * not hash to the signed root exit 8 (log-follow.ts).
 */
import type { AdminClient } from '../../../client/admin-client.js';
import type { CardsPage } from '../../../core/admin-rows.js';
import { cardIdOf } from '../../../core/card-id.js';
import { CardsError } from '../../../core/errors.js';
import { EMPTY_EDGE } from '../../../log/append.js';
import { ed25519Verifier } from '../../../log/note-keys.js';
import { tilePath, tilesForSize, TILE_WIDTH, type TileRef } from '../../../log/tile-path.js';
import { adminClient, adminPages, type AdminFlags } from '../../admin-access.js';
import { connect } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { fetchCheckpoint, followLog } from '../../log-follow.js';
import { RemoteLog } from '../../log-remote.js';
import { acceptCheckpoint } from '../../log-trust.js';
import { resolveSettings } from '../../settings.js';

export interface LogAuditOptions extends AdminFlags {
  logKey?: string;
  /** commander's --no-cards: skip the registry checks (the tree alone). */
  cards?: boolean;
  /** Requests in flight. */
  concurrency: number;
}

export interface LogAuditResult {
  url: string;
  origin: string;
  size: number;
  signatureChecked: boolean;
  tilesChecked: number;
  cardsChecked: number;
  /** Whether the registry's own list was compared with the log (null: not available). */
  adminList: 'checked' | 'unavailable' | 'skipped';
  problems: string[];
  seconds: number;
}

export async function logAudit(
  ctx: CommandContext,
  options: LogAuditOptions,
): Promise<LogAuditResult> {
  const started = ctx.now();
  const settings = resolveSettings(ctx, options);
  const remote = new RemoteLog(settings.url.value, settings.timeout.value);
  const logKey = options.logKey ? ed25519Verifier(options.logKey) : undefined;
  const { checkpoint, signed } = await fetchCheckpoint(remote, logKey);
  const problems: string[] = [];
  const ids: string[] = [];
  const wantCards = options.cards !== false;
  let tilesChecked = 0;
  const tiles = remote.tilesOf(checkpoint.origin);
  const compare = async (tile: TileRef, data: Uint8Array) => {
    const served = await tiles.readTile(tile);
    tilesChecked++;
    if (!served || Buffer.compare(Buffer.from(served), Buffer.from(data)) !== 0)
      problems.push(`tile ${tilePath(tile)}: ${served ? 'differs from the entries' : 'missing'}`);
  };
  const edge = await followLog({
    remote,
    from: EMPTY_EDGE,
    checkpoint,
    concurrency: options.concurrency,
    onEntry: (_index, entry) => {
      if (wantCards) ids.push(cardIdOf(entry));
    },
    // Full hash tiles are final: compare each one the recomputation completes.
    onTiles: async (tiles) => {
      await Promise.all(
        tiles.filter((t) => t.tile.width === TILE_WIDTH).map((t) => compare(t.tile, t.data)),
      );
    },
  });
  // The partial hash tiles of the checkpointed size, from the recomputed edge.
  for (const tile of tilesForSize(checkpoint.size))
    if (tile.level !== 'entries' && tile.width < TILE_WIDTH) {
      const row = edge.tiles[tile.level] ?? [];
      await compare(tile, Buffer.concat(row.map((h) => Buffer.from(h))));
    }
  if (logKey) await acceptCheckpoint(ctx, checkpoint, signed, tiles);
  let cardsChecked = 0;
  let adminList: LogAuditResult['adminList'] = 'skipped';
  if (wantCards) {
    const client = connect(ctx, settings);
    try {
      const concurrency = options.concurrency;
      for (let at = 0; at < ids.length; at += concurrency)
        await Promise.all(
          ids.slice(at, at + concurrency).map(async (id, k) => {
            try {
              await client.getCard(id);
              cardsChecked++;
            } catch (err) {
              if (!(err instanceof CardsError) || err.code !== 'CARD_NOT_FOUND') throw err;
              problems.push(`entry ${at + k}: card ${id} is not served by the registry`);
            }
          }),
        );
      adminList = await compareAdminList(adminClient(ctx, options), ids, problems);
    } finally {
      client.close();
    }
  }
  return {
    url: remote.url,
    origin: checkpoint.origin,
    size: checkpoint.size,
    signatureChecked: logKey !== undefined,
    tilesChecked,
    cardsChecked,
    adminList,
    problems,
    seconds: (ctx.now() - started) / 1000,
  };
}

/**
 * The registry's own list of cards (the admin API's GET /_cards/cards, page after page by its
 * next_cursor, with the admin token the admin commands use), when the server has it: every card
 * listed must be the log entry at its sequence number, up to the checkpoint's size: cards stored
 * since are not in that checkpoint yet (the log integrates them at its next interval), and the
 * list is in sequence order, so reading stops there. A server without the admin API (404) has
 * it reported unavailable; a refused token is an error, since the check would be skipped.
 */
async function compareAdminList(
  admin: AdminClient,
  ids: readonly string[],
  problems: string[],
): Promise<LogAuditResult['adminList']> {
  try {
    for await (const page of adminPages<CardsPage>(admin, 'adminCards', '1000'))
      for (const card of page.cards) {
        if (card.seq >= ids.length) return 'checked';
        if (ids[card.seq] !== card.id)
          problems.push(`card ${card.id} (seq ${card.seq}) is not the log entry ${card.seq}`);
      }
  } catch (err) {
    if (err instanceof CardsError && ['ROUTE_NOT_FOUND', 'SERVICE_REFUSED'].includes(err.code))
      return 'unavailable';
    throw err;
  }
  return 'checked';
}
