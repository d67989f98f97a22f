/**
 * `cards keygen`: a new key pair (Ed25519, or --type p256 / rsa2048…rsa8192 in the stock
 * client's formats) into the keystore (or a file, PEM PKCS#8). Prints the public key as base64
 * DER SPKI. Never overwrites a key unless --force. App keys (tokens) must stay Ed25519.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../../core/errors.js';
import { generateCardKey, type KeyTypeName } from '../../../crypto/signing-key.js';
import type { CommandContext } from '../../context.js';
import { storeKey, writeKeyFile } from '../../keystore.js';
import { shellQuote } from '../../shell-quote.js';

export interface KeygenOptions {
  identity?: string;
  out?: string;
  force?: boolean;
  /** One of KEY_TYPES (its flag's choices). */
  type: string;
}

export interface KeygenResult {
  identity: string | null;
  file: string;
  publicKey: string;
  type: KeyTypeName;
}

export function keygen(ctx: CommandContext, options: KeygenOptions): KeygenResult {
  const type = options.type as KeyTypeName;
  const key = generateCardKey(type);
  const force = options.force === true;
  if (options.out !== undefined) {
    const file = resolve(ctx.cwd, options.out);
    writeKeyFile(file, key, force);
    return { identity: options.identity ?? null, file, publicKey: key.publicKey.toBase64(), type };
  }
  const identity = options.identity;
  if (identity === undefined) {
    throw new CardsError('USAGE', 'keygen needs --identity ID (keystore) or --out FILE.', {
      hint: 'for example `cards keygen --identity alice`',
    });
  }
  let file: string;
  try {
    file = storeKey(ctx.home, identity, key, force);
  } catch (err) {
    // The keystore's key is usually the key of a published card: replacing the file alone
    // leaves that card with a key nobody holds, which `cards rotate` avoids.
    if (!(err instanceof CardsError) || err.code !== 'FILE_EXISTS') throw err;
    throw new CardsError('FILE_EXISTS', `"${identity}" has a key in the keystore already.`, {
      hint: `to change the key of ${shellQuote(identity)}'s card, \`cards rotate --identity ${shellQuote(identity)}\` publishes the replacement and then swaps the key; --force replaces the file (the old key is lost)`,
    });
  }
  return { identity, file, publicKey: key.publicKey.toBase64(), type };
}
