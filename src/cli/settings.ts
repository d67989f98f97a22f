/**
 * Settings in force for one command, from four layers: flags > environment > config profile >
 * defaults. Each value remembers where it came from (`cards config` shows it). Credentials are
 * chosen as a whole from the first layer that has any: a token, else the vendor app config,
 * else an app key; with none anywhere, the app key a local `cards serve` keeps beside its store.
 * `serve` resolves its own settings through the same layers (serve-settings.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { isProfileName, PROFILES, type ProfileName, type WireProfile } from '../core/profile.js';
import { DEFAULT_DB, DEFAULT_URL } from '../server/defaults.js';
import { fileHome } from '../server/file-home.js';
import { configPath, readConfig, selectProfile, type ProfileSettings } from './config-file.js';
import type { CommandContext } from './context.js';

/** The flags every command that talks to a service accepts (commander's camelCase names). */
export interface ConnectionFlags {
  url?: string;
  token?: string;
  appKey?: string;
  appConfig?: string;
  identity?: string;
  compat?: string;
  db?: string;
  profile?: string;
  serviceKey?: string;
  timeout?: string;
}

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Sourced<T> {
  readonly value: T;
  readonly source: Source;
}

export type Credential =
  | { readonly kind: 'token'; readonly token: string; readonly source: Source }
  | { readonly kind: 'app-config'; readonly file: string; readonly source: Source }
  | { readonly kind: 'app-key'; readonly file: string; readonly source: Source }
  | { readonly kind: 'local-app-key'; readonly file: string; readonly source: Source };

export interface Settings {
  readonly configPath: string;
  readonly profileName: string | undefined;
  readonly url: Sourced<string>;
  readonly compat: Sourced<ProfileName>;
  readonly identity: Sourced<string> | undefined;
  readonly db: Sourced<string>;
  readonly serviceKey: Sourced<string> | undefined;
  readonly credential: Credential | undefined;
  readonly wire: WireProfile;
  /** Whole-request deadline in seconds (--timeout, CARDS_TIMEOUT; default 30). */
  readonly timeout: Sourced<number>;
}

const ENV = {
  url: 'CARDS_URL',
  token: 'CARDS_TOKEN',
  appKey: 'CARDS_APP_KEY',
  appConfig: 'CARDS_APP_CONFIG',
  identity: 'CARDS_IDENTITY',
  compat: 'CARDS_COMPAT',
  db: 'CARDS_DB',
  profile: 'CARDS_PROFILE',
  serviceKey: 'CARDS_SERVICE_KEY',
  timeout: 'CARDS_TIMEOUT',
} as const satisfies Record<keyof ConnectionFlags, string>;

/** The layers one command reads its settings from: its flags, the environment, its profile. */
export interface SettingLayers {
  readonly configPath: string;
  readonly profileName: string | undefined;
  readonly profile: ProfileSettings;
  /** The environment variable's value; unset and empty are the same. */
  env(variable: string): string | undefined;
  /** The first of flag > environment > profile that is set, with its source. */
  pick(
    flag: string | undefined,
    variable: string,
    fromProfile?: string,
  ): Sourced<string> | undefined;
}

/** Reads the config file and selects the profile (--profile, CARDS_PROFILE, its default). */
export function settingLayers(ctx: CommandContext, profileFlag?: string): SettingLayers {
  const env = (variable: string): string | undefined => ctx.env[variable] || undefined;
  const path = configPath(ctx);
  const selected = selectProfile(readConfig(path), path, profileFlag ?? env(ENV.profile));
  return {
    configPath: path,
    profileName: selected?.name,
    profile: selected?.settings ?? {},
    env,
    pick(flag, variable, fromProfile) {
      if (flag !== undefined && flag !== '') return { value: flag, source: 'flag' };
      const fromEnv = env(variable);
      if (fromEnv !== undefined) return { value: fromEnv, source: 'env' };
      if (fromProfile !== undefined) return { value: fromProfile, source: 'profile' };
      return undefined;
    },
  };
}

/** --compat, CARDS_COMPAT or the profile's; default the spec's words. */
export function pickCompat(layers: SettingLayers, flag: string | undefined): Sourced<ProfileName> {
  const raw = layers.pick(flag, ENV.compat, layers.profile.compat) ?? {
    value: 'service',
    source: 'default' as const,
  };
  if (!isProfileName(raw.value))
    throw new CardsError('USAGE', `--compat must be "service" or "virgil", got "${raw.value}".`);
  return { value: raw.value, source: raw.source };
}

/** --db, CARDS_DB or the profile's: the store of a local `cards serve`. */
export const pickDb = (layers: SettingLayers, flag: string | undefined): Sourced<string> =>
  layers.pick(flag, ENV.db, layers.profile.db) ?? { value: DEFAULT_DB, source: 'default' };

/** Where `cards export` and `cards import` go: a store, or a running server's admin API. */
export type TransferRoute = { readonly via: 'server' } | { readonly via: 'store'; store: string };

/**
 * The route of export and import, each setting flag > environment > profile like every other:
 * a store when --store (CARDS_STORE) names one; else a server when a URL is set (--url,
 * CARDS_URL, the profile's url); else a store when --db (CARDS_DB, the profile's db) or
 * DATABASE_URL names one; else the local server at the default URL.
 */
export function transferRoute(
  ctx: CommandContext,
  flags: { store?: string; url?: string; db?: string; profile?: string },
): TransferRoute {
  const layers = settingLayers(ctx, flags.profile);
  const store = layers.pick(flags.store, 'CARDS_STORE');
  if (store) return { via: 'store', store: store.value };
  if (layers.pick(flags.url, ENV.url, layers.profile.url)) return { via: 'server' };
  const db =
    layers.pick(flags.db, ENV.db, layers.profile.db) ?? layers.pick(undefined, 'DATABASE_URL');
  return db ? { via: 'store', store: db.value } : { via: 'server' };
}

export function resolveSettings(ctx: CommandContext, flags: ConnectionFlags): Settings {
  const layers = settingLayers(ctx, flags.profile);
  const env = (key: keyof ConnectionFlags): string | undefined => layers.env(ENV[key]);
  const { profile } = layers;
  const pick = (key: keyof ConnectionFlags & keyof ProfileSettings): Sourced<string> | undefined =>
    layers.pick(flags[key], ENV[key], profile[key]);

  const compat = pickCompat(layers, flags.compat);
  const db = pickDb(layers, flags.db);
  const url = pick('url') ?? { value: DEFAULT_URL, source: 'default' as const };
  validateUrl(url);

  return {
    configPath: layers.configPath,
    profileName: layers.profileName,
    url,
    compat,
    identity: pick('identity'),
    db,
    serviceKey: pick('serviceKey'),
    credential: pickCredential(ctx, flags, env, profile, db.value),
    wire: PROFILES[compat.value],
    timeout: pickTimeout(layers.pick(flags.timeout, ENV.timeout)),
  };
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

function pickTimeout(raw: Sourced<string> | undefined): Sourced<number> {
  if (raw === undefined) return { value: DEFAULT_TIMEOUT_SECONDS, source: 'default' };
  const value = Number(raw.value);
  if (!/^\d+(\.\d+)?$/.test(raw.value.trim()) || !(value > 0))
    throw new CardsError(
      'USAGE',
      `--timeout (CARDS_TIMEOUT) must be a number of seconds above 0, got "${raw.value}" (${raw.source}).`,
    );
  return { value, source: raw.source };
}

function validateUrl(url: Sourced<string>): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new CardsError(
      'USAGE',
      `The service URL "${url.value}" (${url.source}) is not an http(s) URL.`,
      {
        hint: 'pass --url http://HOST:PORT',
      },
    );
  }
}

function pickCredential(
  ctx: CommandContext,
  flags: ConnectionFlags,
  env: (key: keyof ConnectionFlags) => string | undefined,
  profile: ProfileSettings,
  db: string,
): Credential | undefined {
  const layers: [Source, { token?: string; appConfig?: string; appKey?: string }][] = [
    ['flag', { token: flags.token, appConfig: flags.appConfig, appKey: flags.appKey }],
    ['env', { token: env('token'), appConfig: env('appConfig'), appKey: env('appKey') }],
    ['profile', { appConfig: profile.appConfig, appKey: profile.appKey }],
  ];
  for (const [source, layer] of layers) {
    if (layer.token) return { kind: 'token', token: layer.token, source };
    if (layer.appConfig)
      return { kind: 'app-config', file: resolve(ctx.cwd, layer.appConfig), source };
    if (layer.appKey) return { kind: 'app-key', file: resolve(ctx.cwd, layer.appKey), source };
  }
  const local = fileHome(db, ctx.cwd).appKey;
  if (existsSync(local)) return { kind: 'local-app-key', file: local, source: 'default' };
  return undefined;
}

/** The identity a command acts for: --identity, CARDS_IDENTITY or the profile's. */
export function requireIdentity(settings: Settings, what: string): string {
  if (settings.identity) return settings.identity.value;
  throw new CardsError('USAGE', `${what} needs an identity.`, {
    hint: 'pass --identity ID (or set CARDS_IDENTITY, or an identity in your profile: `cards init`)',
  });
}
