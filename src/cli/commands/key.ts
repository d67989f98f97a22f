/** `cards key public` and `cards key list`: the public half of a key; the keystore's keys. */
import { CardsError } from '../../core/errors.js';
import type { CommandContext } from '../context.js';
import { readPrivateKey } from '../inputs.js';
import { keyFile, listKeys, requireKey } from '../keystore.js';

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
    const key = readPrivateKey(ctx, options.file);
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

export interface KeyListResult {
  home: string;
  keys: { identity: string; file: string }[];
}

export function keyList(ctx: CommandContext): KeyListResult {
  return { home: ctx.home, keys: listKeys(ctx.home) };
}
