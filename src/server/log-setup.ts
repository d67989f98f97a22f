/**
 * The transparency log of a server (issue 16): its key (server-keys.ts: beside the store, or
 * kept in the database, so every server signs the one log), its origin (`--log-origin`, default stable and unique to the key), its
 * tiles (a folder beside a JSON store, memory for a memory store), its witnesses, and the
 * CardLog that follows the store.
 */
import { existsSync } from 'node:fs';
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { FileTiles } from '../store/json/file-tiles.js';
import { defaultLogOrigin, LogWriter } from '../log/log-writer.js';
import { isValidKeyName } from '../log/note-keys.js';
import { MemoryTileStore, type TileStore } from '../log/tile-store.js';
import { CardLog } from '../registry/card-log.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { CardStore } from '../store/store.js';
import { witnessClient } from '../witness/client.js';
import type { OpenedStore } from './open-store.js';
import { PostgresTiles } from '../store/postgres/tiles.js';

export interface LogSettings {
  /** Checkpoint origin; default `cards.local/<hex>` from the log key. */
  readonly origin?: string;
  /** The longest a card waits before its batch is integrated, ms. */
  readonly intervalMs: number;
  readonly witnesses: readonly { readonly url: string; readonly vkey: string }[];
}

export const DEFAULT_LOG_INTERVAL_MS = 500;

/**
 * Where a store's log keeps its tiles: the folder beside a JSON store (`created` names it when
 * it does not exist yet, so a failed start removes it again), the PostgreSQL store's tables
 * (one log shared by every server on the database), else memory.
 */
export function logTilesOf(opened: OpenedStore): { tiles: TileStore; created?: string } {
  if (opened.store instanceof PostgresStore) return { tiles: new PostgresTiles(opened.store) };
  if (!opened.home) return { tiles: new MemoryTileStore() };
  const dir = opened.home.logDir;
  return { tiles: new FileTiles(dir), ...(!existsSync(dir) && { created: dir }) };
}

export interface OpenLogOptions {
  readonly store: CardStore;
  readonly key: PrivateKey;
  readonly tiles: TileStore;
  readonly settings: LogSettings;
  readonly onWarning: (message: string) => void;
}

export async function openCardLog(options: OpenLogOptions): Promise<CardLog> {
  const { settings, key } = options;
  const origin = settings.origin ?? defaultLogOrigin(key.publicKey.raw);
  if (!isValidKeyName(origin))
    throw new CardsError('USAGE', `--log-origin "${origin}": one word, no spaces or "+".`);
  const writer = await LogWriter.open({
    tiles: options.tiles,
    origin,
    key,
    cosigners: settings.witnesses.map((w) => witnessClient(w)),
    onWarning: options.onWarning,
  });
  return CardLog.open({
    store: options.store,
    writer,
    intervalMs: settings.intervalMs,
    onWarning: options.onWarning,
  });
}
