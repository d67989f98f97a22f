/**
 * `cards key public`, `cards key service` and `cards key list`: the public half of a key; the
 * public service key of a local `cards serve` store (what `inspect --service-key` takes); the
 * keystore's keys.
 */
import { CardsError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { pruneBackups } from '../../key-backups.js';
import { requireIdentity } from '../../settings.js';
import { readCardKeyFile } from '../../inputs.js';
import { keyFile, listKeys, requireKey } from '../../keystore.js';
import { requireLocalServiceKey } from '../../service-key.js';

export interface KeyPublicOptions {
  file?: string;
  identity?: string;
}

export interface KeyPublicResult {
  identity: string | null;
  file: string;
  publicKey: string;
  publicKeyPem: string;
}

export function keyPublic(ctx: CommandContext, options: KeyPublicOptions): KeyPublicResult {
  if (options.file !== undefined) {
    const key = readCardKeyFile(ctx, options.file);
    return {
      identity: null,
      file: options.file,
      publicKey: key.publicKey.toBase64(),
      publicKeyPem: key.publicKey.toPem(),
    };
  }
  if (options.identity === undefined)
    throw new CardsError('USAGE', 'key public needs FILE or --identity ID.', {
      hint: 'for example `cards key public alice.pem` or `cards key public --identity alice`',
    });
  const key = requireKey(ctx.home, options.identity);
  return {
    identity: options.identity,
    file: keyFile(ctx.home, options.identity),
    publicKey: key.publicKey.toBase64(),
    publicKeyPem: key.publicKey.toPem(),
  };
}

export interface KeyServiceOptions {
  db: string;
}

/** The service key kept beside a local store (--db, CARDS_DB, the profile's, ./cards.json). */
export function keyService(ctx: CommandContext, options: KeyServiceOptions): KeyPublicResult {
  const { file, key } = requireLocalServiceKey(ctx, options.db);
  return { identity: null, file, publicKey: key.toBase64(), publicKeyPem: key.toPem() };
}

export interface KeyListResult {
  home: string;
  keys: { identity: string; file: string }[];
}

export function keyList(ctx: CommandContext): KeyListResult {
  return { home: ctx.home, keys: listKeys(ctx.home) };
}

export interface KeyPruneResult {
  identity: string;
  pruned: string[];
}

/** Removes the identity's key backups of earlier rotations, without rotating (its key stays). */
export function keyPrune(ctx: CommandContext, identity: string | undefined): KeyPruneResult {
  const who = requireIdentity(identity, 'key prune');
  return { identity: who, pruned: pruneBackups(ctx.home, who, null) };
}
