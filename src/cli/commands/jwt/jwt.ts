/**
 * `cards jwt`: a token the service accepts for an identity. EdDSA JWT from an app key (or the
 * local `cards serve` app key); with --app-config, a stock VEDS512 token as the vendor's
 * clients make them (docs/http.md, Cryptography); with --store postgres://…, the app key the
 * servers on that database keep there (read only: nothing is made or migrated).
 */
import { existsSync } from 'node:fs';
import { CardsError } from '../../../core/errors.js';
import { parsePrivateKey } from '../../../crypto/keys.js';
import { mintToken } from '../../../crypto/tokens.js';
import { isStoreUrl } from '../../../server/defaults.js';
import { fileHome } from '../../../server/file-home.js';
import { keptAppKey } from '../../../server/store-transfer.js';
import { appCredentials, missingCredentials, type AppCredentials } from '../../connection.js';
import type { CommandContext } from '../../context.js';
import { ownerUrl } from '../../local-server.js';
import {
  requireIdentity,
  resolveSettings,
  setting,
  type ConnectionFlags,
  type Settings,
} from '../../settings.js';

export interface JwtOptions extends ConnectionFlags {
  /** Seconds (its flag parses 30s, 20m, 1h, 7d). */
  ttl: number;
  /** A PostgreSQL URL: its kept app key signs; a file: as --db. */
  store?: string;
}

export interface JwtResult {
  token: string;
  identity: string;
  format: 'jwt' | 'stock';
  issuedAt: number;
  expiresAt: number;
  /** The key's file, or where in a database it is kept. */
  keyFile: string;
}

/**
 * A token printed is sent nowhere: with no credential given, the local store's app key signs it
 * while no server holds that store too (the CLI's requests send such tokens only to the server
 * holding the store, src/cli/local-server.ts); with one running, only for that server's URL.
 */
function printedWithLocalKey(ctx: CommandContext, settings: Settings): Settings {
  const file = fileHome(settings.db.value, ctx.cwd).appKey;
  if (settings.credential !== undefined || ownerUrl(settings.db.value, ctx.cwd) !== undefined)
    return settings;
  if (!existsSync(file)) return settings;
  return { ...settings, credential: { kind: 'local-app-key', file, source: 'default' } };
}

export async function jwt(ctx: CommandContext, options: JwtOptions): Promise<JwtResult> {
  const fromDatabase = options.store !== undefined && isStoreUrl(options.store);
  const given = (key: 'appKey' | 'appConfig'): boolean => setting(options, key)?.source === 'flag';
  if (fromDatabase && (given('appKey') || given('appConfig')))
    throw new CardsError(
      'USAGE',
      'jwt signs with one key: give --store postgres://… or --app-key / --app-config, not both.',
    );
  // A JSON store file given as --store is the store of a local `cards serve`, as --db.
  const flags =
    options.store !== undefined && !fromDatabase
      ? { ...options, db: options.store, sources: { ...options.sources, db: 'flag' as const } }
      : options;
  const settings = printedWithLocalKey(ctx, resolveSettings(ctx, flags));
  const identity = requireIdentity(settings.identity?.value, 'jwt');
  const ttlSeconds = options.ttl;
  if (!fromDatabase && settings.credential?.kind === 'token')
    throw new CardsError(
      'USAGE',
      'jwt mints a token from an app key; a --token/CARDS_TOKEN is set instead.',
      {
        hint: 'pass --app-key FILE or --app-config FILE, or unset CARDS_TOKEN',
      },
    );
  const app = fromDatabase
    ? await databaseAppKey(options.store as string)
    : appCredentials(ctx, settings);
  if (!app) throw missingCredentials(ctx, settings);
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

/** The app key kept in the database at `url` (cards_keys, name "app-key"). */
async function databaseAppKey(url: string): Promise<AppCredentials> {
  const { pem, where } = await keptAppKey(url);
  return { key: parsePrivateKey(pem), format: 'jwt', file: where };
}
