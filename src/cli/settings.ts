/**
 * The connection settings of a command that talks to a service, from its flags as
 * value-sources.ts layered them (flag > environment > config profile > default), each with its
 * source. Credentials are chosen as a whole from the first layer that has any: a token, else
 * the vendor app config, else an app key; with none anywhere, the app key a local `cards serve`
 * keeps beside its store. The profile's credentials go to the profile's server alone
 * (profileWithheld), the store's to the server holding it alone (local-server.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { PROFILES, type ProfileName, type WireProfile } from '../core/profile.js';
import { DEFAULT_URL, isStoreUrl } from '../server/defaults.js';
import { fileHome } from '../server/file-home.js';
import { resolveStoreTarget } from '../server/open-engine.js';
import { refuseUrlCredentials, withScheme } from './config-file.js';
import type { CommandContext } from './context.js';
import { ownsStore, storeAddress } from './local-server.js';
import { shellQuote } from './shell-quote.js';
import type { Source, Sourced } from './value-sources.js';

/** The flags of every command that talks to a service (commander's camelCase names). */
export interface ConnectionFlags extends Sourced {
  url?: string;
  token?: string;
  appKey?: string;
  appConfig?: string;
  identity?: string;
  compat?: string;
  db?: string;
  profile?: string;
  serviceKey?: string;
  /** Seconds. */
  timeout?: number;
  debug?: boolean;
}

export interface Setting<T, S extends string = Source> {
  readonly value: T;
  /** The layer; for the URL, `address`: the server holding --db's store named it (its `file`). */
  readonly source: S;
  /** The file the value was read from (the store's address file). */
  readonly file?: string;
}

type Credential =
  | { readonly kind: 'token'; readonly token: string; readonly source: Source }
  | { readonly kind: 'app-config'; readonly file: string; readonly source: Source }
  | { readonly kind: 'app-key'; readonly file: string; readonly source: Source }
  | { readonly kind: 'local-app-key'; readonly file: string; readonly source: Source };

/** The service URL: a layer's, or the address of the server holding --db's store. */
export type UrlSetting = Setting<string, Source | 'address'>;

export interface Settings {
  readonly url: UrlSetting;
  readonly compat: Setting<ProfileName>;
  readonly identity: Setting<string> | undefined;
  readonly db: Setting<string>;
  readonly serviceKey: Setting<string> | undefined;
  readonly credential: Credential | undefined;
  /** Why the credential, the profile's, is not sent to `url` (profileWithheld); none is sent. */
  readonly withheld: string | undefined;
  readonly wire: WireProfile;
  /** Whole-request deadline in seconds. */
  readonly timeout: Setting<number>;
  /** Every HTTP exchange on stderr (--debug). */
  readonly debug: boolean;
}

/** A flag's value with its source; a value given without sources came from a flag. */
export function setting<K extends keyof ConnectionFlags>(
  flags: ConnectionFlags,
  key: K,
): Setting<NonNullable<ConnectionFlags[K]>> | undefined {
  const value = flags[key];
  if (value === undefined || value === '') return undefined;
  return {
    value: value as NonNullable<ConnectionFlags[K]>,
    source: flags.sources?.[key] ?? 'flag',
  };
}

/** A flag whose declaration sets a default: its value and source, or INTERNAL. */
export function required<K extends 'url' | 'db' | 'timeout' | 'compat'>(
  flags: ConnectionFlags,
  key: K,
): Setting<NonNullable<ConnectionFlags[K]>> {
  const found = setting(flags, key);
  if (found) return found;
  throw new CardsError('INTERNAL', `--${key} has no value: its declaration sets a default.`);
}

/**
 * Where the server is: --url, else (given nowhere) the server holding --db's store where one
 * runs, else the default; and --db, whose store's files go only to that server. All an admin
 * command needs.
 */
export function resolveServer(
  ctx: CommandContext,
  flags: ConnectionFlags,
): { url: UrlSetting; db: Setting<string> } {
  const given = required(flags, 'url');
  const db = required(flags, 'db');
  const found = given.source === 'default' ? storeAddress(db.value, ctx.cwd) : undefined;
  const url: UrlSetting = found
    ? { value: found.url, source: 'address', file: found.file }
    : { ...given, value: withScheme(given.value) };
  validateUrl(url);
  return { url, db };
}

/** The settings that are credentials, by the flag and variable that give one. */
const CREDENTIALS = {
  token: { flag: '--token', env: 'CARDS_TOKEN' },
  appKey: { flag: '--app-key', env: 'CARDS_APP_KEY' },
  appConfig: { flag: '--app-config', env: 'CARDS_APP_CONFIG' },
  adminToken: { flag: '--admin-token', env: 'CARDS_ADMIN_TOKEN' },
} as const;

/** Where the credential `key` was set: its flag, its variable or the profile's setting. */
export const setBy = (key: keyof typeof CREDENTIALS, source: Source = 'flag'): string =>
  source === 'env'
    ? CREDENTIALS[key].env
    : source === 'config'
      ? `the profile's ${key}`
      : CREDENTIALS[key].flag;

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Why the profile's credential `key`, in force, is not sent to `server.url`; undefined when it
 * may be. A profile's credentials belong to the profile's server, as git's and gh's stored
 * credentials belong to a host: they go to the origin (scheme, host and port, RFC 6454 section
 * 4) of the profile's url, or without one of the URL the profile leads to (the server holding
 * --db's store, else the default), and to no other URL a flag or variable names, which would
 * learn the admin token, or a token to replay to the profile's server. A credential given by
 * flag or variable is the user's for the URL they point it at.
 */
export function profileWithheld(
  ctx: CommandContext,
  flags: ConnectionFlags & { adminToken?: string },
  server: { url: UrlSetting; db: Setting<string> },
  key: Exclude<keyof typeof CREDENTIALS, 'token'>,
): string | undefined {
  const { url } = server;
  if (flags.sources?.[key] !== 'config' || (url.source !== 'flag' && url.source !== 'env'))
    return undefined;
  const own = withScheme(
    flags.profileUrl ?? storeAddress(server.db.value, ctx.cwd)?.url ?? DEFAULT_URL,
  );
  const origin = originOf(own);
  if (origin !== undefined && origin === originOf(url.value)) return undefined;
  const given = CREDENTIALS[key];
  const value = key === 'adminToken' ? '' : ` ${shellQuote(flags[key] ?? '')}`;
  return `the profile's ${key} goes only to the profile's URL, ${own}, not to ${url.value} (${url.source === 'flag' ? '--url' : 'CARDS_URL'}); to send it there anyway, pass ${given.flag}${value} or set ${given.env}`;
}

export function resolveSettings(ctx: CommandContext, flags: ConnectionFlags): Settings {
  const { url, db } = resolveServer(ctx, flags);
  const compat = required(flags, 'compat') as Setting<ProfileName>;
  const picked = pickCredential(ctx, flags, db.value, url.value);
  const key = picked?.kind === 'app-config' ? 'appConfig' : 'appKey';
  const profiles =
    picked?.source === 'config' ? profileWithheld(ctx, flags, { url, db }, key) : undefined;
  // The profile's credential withheld from this URL, the store's app key may still be its server's.
  const local = profiles === undefined ? undefined : localCredential(ctx, db.value, url.value);
  const credential = local ?? picked;
  const withheld = local === undefined ? profiles : undefined;
  return {
    url,
    compat,
    identity: setting(flags, 'identity'),
    db,
    serviceKey: setting(flags, 'serviceKey'),
    credential,
    withheld,
    wire: PROFILES[compat.value],
    timeout: required(flags, 'timeout'),
    debug: flags.debug === true,
  };
}

function validateUrl(url: UrlSetting): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new CardsError(
      'USAGE',
      `The service URL "${url.value}" (${url.source}) is not an http(s) URL.`,
      { hint: 'pass --url http://HOST:PORT' },
    );
  refuseUrlCredentials(parsed, url.source);
}

function pickCredential(
  ctx: CommandContext,
  flags: ConnectionFlags,
  db: string,
  url: string,
): Credential | undefined {
  const at = (key: 'token' | 'appConfig' | 'appKey', layer: Source): string | undefined => {
    const found = setting(flags, key);
    return found?.source === layer ? found.value : undefined;
  };
  for (const source of ['flag', 'env', 'config'] as const) {
    const token = at('token', source);
    if (token) return { kind: 'token', token, source };
    const appConfig = at('appConfig', source);
    if (appConfig) return { kind: 'app-config', file: resolve(ctx.cwd, appConfig), source };
    const appKey = at('appKey', source);
    if (appKey) return { kind: 'app-key', file: resolve(ctx.cwd, appKey), source };
  }
  return localCredential(ctx, db, url);
}

/** The local store's app key: it mints tokens for the server that holds that store, no other. */
function localCredential(ctx: CommandContext, db: string, url: string): Credential | undefined {
  const local = fileHome(db, ctx.cwd).appKey;
  if (existsSync(local) && ownsStore(url, db, ctx.cwd))
    return { kind: 'local-app-key', file: local, source: 'default' };
  return undefined;
}

/**
 * The store a command opens itself (`serve`, `export`, `import`, `db migrate`): --store, else
 * --db when set anywhere but its default, else DATABASE_URL, else --db's default
 * (src/server/open-engine.ts); a store file against the working folder.
 */
export function storeTargetOf(
  ctx: CommandContext,
  flags: Pick<ConnectionFlags, 'db' | 'sources'> & { store?: string },
): string {
  const db = required(flags, 'db');
  const target = resolveStoreTarget({
    store: flags.store,
    db: db.source === 'default' ? undefined : db.value,
    databaseUrl: ctx.env.DATABASE_URL,
    fallback: db.value,
  });
  return isStoreUrl(target) ? target : resolve(ctx.cwd, target);
}

/** C0 controls (line breaks, NUL) and DEL: no HTTP field value carries them (RFC 9110 section 5.5). */
// eslint-disable-next-line no-control-regex
const UNSENDABLE = /[\x00-\x1f\x7f]/;

/**
 * `token` to go in an Authorization header, without the spaces and line breaks around it (as
 * fetch's Headers strip them); USAGE naming where it came from (`from`) when a header cannot
 * carry what is left, rather than a failure of the request that would print the header, the
 * secret in it.
 */
export function sendableToken(token: string, from: string): string {
  const trimmed = token.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  if (!UNSENDABLE.test(trimmed)) return trimmed;
  throw new CardsError(
    'USAGE',
    `The token from ${from} holds a line break or another control character, which no HTTP header carries (the token is not shown).`,
    { hint: `set ${from} to the token alone, on one line` },
  );
}

/** The identity a command acts for: --identity, CARDS_IDENTITY or the profile's. */
export function requireIdentity(identity: string | undefined, what: string): string {
  if (identity !== undefined && identity !== '') return identity;
  throw new CardsError('USAGE', `${what} needs an identity.`, {
    hint: 'pass --identity ID (or set CARDS_IDENTITY, or an identity in your profile: `cards init`)',
  });
}
