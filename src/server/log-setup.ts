/**
 * The transparency log of a server: its key (server-keys.ts: kept by the engine, so every server
 * on a shared engine signs the one log), its origin (`--log-origin`, default stable and unique to
 * the key), its tiles (the engine's), its witnesses, and the CardLog that follows the cards.
 */
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { looksLikeResetOrigin } from '../log/log-epochs.js';
import { defaultLogOrigin, LogWriter } from '../log/log-writer.js';
import { isValidKeyName } from '../log/note-keys.js';
import { CardLog } from '../registry/card-log.js';
import type { Engine } from '../store/engine.js';
import { witnessClient } from './witness-client.js';

export interface LogSettings {
  /** Checkpoint origin; default `cards.local/<hex>` from the log key. */
  readonly origin?: string;
  /** The longest a card waits before its batch is integrated, ms. */
  readonly intervalMs: number;
  readonly witnesses: readonly { readonly url: string; readonly vkey: string }[];
  /** Begin a new log (the next `<origin>/reset-N`) whatever the stored one holds. */
  readonly newLog?: boolean;
}

export interface OpenLogOptions {
  /** Its cards are the log's entries; its tiles hold the log. */
  readonly engine: Engine;
  readonly key: PrivateKey;
  readonly settings: LogSettings;
  readonly onWarning: (message: string) => void;
}

export async function openCardLog(options: OpenLogOptions): Promise<CardLog> {
  const { settings, key } = options;
  const origin = settings.origin ?? defaultLogOrigin(key.publicKey.raw);
  if (!isValidKeyName(origin))
    throw new CardsError('USAGE', `--log-origin "${origin}": one word, no spaces or "+".`);
  // A reset's log is `<origin>/reset-N`, served under /log/reset-N/: a base origin of that form
  // would be taken for one.
  if (looksLikeResetOrigin(origin))
    throw new CardsError(
      'USAGE',
      `--log-origin "${origin}": ends as the origin of a reset's log (/reset-N); choose another.`,
    );
  const writer = await LogWriter.open({
    tiles: options.engine.tiles,
    origin,
    key,
    newLog: settings.newLog ?? false,
    cosigners: settings.witnesses.map((w) => witnessClient(w)),
    onWarning: options.onWarning,
  });
  return CardLog.open({
    store: options.engine.cards,
    writer,
    intervalMs: settings.intervalMs,
    onWarning: options.onWarning,
  });
}
