/**
 * `cards jwt`: a token the service accepts for an identity. EdDSA JWT from an app key (or the
 * local `cards serve` app key); with --app-config, a stock VEDS512 token as the vendor's
 * clients make them (wire-facts section 3).
 */
import { CardsError } from '../../core/errors.js';
import { mintToken } from '../../crypto/tokens.js';
import { appCredentials, missingCredentials } from '../connection.js';
import type { CommandContext } from '../context.js';
import { parseDuration } from '../inputs.js';
import { requireIdentity, resolveSettings, type ConnectionFlags } from '../settings.js';

export interface JwtOptions extends ConnectionFlags {
  ttl?: string;
}

export interface JwtResult {
  token: string;
  identity: string;
  format: 'jwt' | 'stock';
  issuedAt: number;
  expiresAt: number;
  keyFile: string;
}

export async function jwt(ctx: CommandContext, options: JwtOptions): Promise<JwtResult> {
  const settings = resolveSettings(ctx, options);
  const identity = requireIdentity(settings, 'jwt');
  const ttlSeconds = parseDuration(options.ttl ?? '1h', '--ttl');
  if (settings.credential?.kind === 'token')
    throw new CardsError(
      'USAGE',
      'jwt mints a token from an app key; a --token/CARDS_TOKEN is set instead.',
      {
        hint: 'pass --app-key FILE or --app-config FILE, or unset CARDS_TOKEN',
      },
    );
  const app = appCredentials(ctx, settings);
  if (!app) throw missingCredentials(settings);
  const now = ctx.now();
  const token = mintToken({
    key: app.key,
    identity,
    now,
    ttlSeconds,
    format: app.format,
    ...(app.kid === undefined ? {} : { kid: app.kid }),
    ...(app.appId === undefined ? {} : { appId: app.appId }),
  });
  const issuedAt = Math.floor(now / 1000);
  return {
    token,
    identity,
    format: app.format,
    issuedAt,
    expiresAt: issuedAt + ttlSeconds,
    keyFile: app.file,
  };
}
