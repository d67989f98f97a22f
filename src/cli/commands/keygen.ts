/**
 * `cards keygen`: a new Ed25519 key pair into the keystore (or a file, PEM PKCS#8). Prints the
 * public key as base64 DER SPKI. Never overwrites a key unless --force.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../core/errors.js';
import { generatePrivateKey } from '../../crypto/keys.js';
import type { CommandContext } from '../context.js';
import { storeKey, writeKeyFile } from '../keystore.js';
import { resolveSettings, type ConnectionFlags } from '../settings.js';

export interface KeygenOptions extends ConnectionFlags {
  out?: string;
  force?: boolean;
}

export interface KeygenResult {
  identity: string | null;
  file: string;
  publicKey: string;
}

export function keygen(ctx: CommandContext, options: KeygenOptions): KeygenResult {
  const key = generatePrivateKey();
  const force = options.force === true;
  if (options.out !== undefined) {
    const file = resolve(ctx.cwd, options.out);
    writeKeyFile(file, key, force);
    return { identity: options.identity ?? null, file, publicKey: key.publicKey.toBase64() };
  }
  const identity = resolveSettings(ctx, options).identity?.value;
  if (identity === undefined) {
    throw new CardsError('USAGE', 'keygen needs --identity ID (keystore) or --out FILE.', {
      hint: 'for example `cards keygen --identity alice`',
    });
  }
  const file = storeKey(ctx.home, identity, key, force);
  return { identity, file, publicKey: key.publicKey.toBase64() };
}
