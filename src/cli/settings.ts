/**
 * Settings in force for one command, from four layers: flags > environment > config profile >
 * defaults. Each value remembers where it came from (`cards config` shows it). Credentials are
 * chosen as a whole from the first layer that has any: a token, else the vendor app config,
 * else an app key; with none anywhere, the app key a local `cards serve` keeps beside its store.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { isProfileName, PROFILES, type ProfileName, type WireProfile } from '../core/profile.js';
import { DEFAULT_DB, storePaths } from '../store/paths.js';
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
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

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
} as const satisfies Record<keyof ConnectionFlags, string>;

export function resolveSettings(ctx: CommandContext, flags: ConnectionFlags): Settings {
  const env = (key: keyof ConnectionFlags): string | undefined => ctx.env[ENV[key]] || undefined;
  const path = configPath(ctx);
  const requested = flags.profile ?? env('profile');
  const config = readConfig(path);
  const selected = selectProfile(config, path, requested);
  const profile: ProfileSettings = selected?.settings ?? {};

  function pick(key: keyof ConnectionFlags & keyof ProfileSettings): Sourced<string> | undefined {
    const flag = flags[key];
    if (flag !== undefined && flag !== '') return { value: flag, source: 'flag' };
    const fromEnv = env(key);
    if (fromEnv !== undefined) return { value: fromEnv, source: 'env' };
    const fromProfile = profile[key];
    if (fromProfile !== undefined) return { value: fromProfile, source: 'profile' };
    return undefined;
  }

  const compatRaw = pick('compat') ?? { value: 'service', source: 'default' };
  if (!isProfileName(compatRaw.value)) {
    throw new CardsError(
      'USAGE',
      `--compat must be "service" or "virgil", got "${compatRaw.value}".`,
    );
  }
  const compat: Sourced<ProfileName> = { value: compatRaw.value, source: compatRaw.source };
  const db = pick('db') ?? { value: DEFAULT_DB, source: 'default' as const };
  const url = pick('url') ?? { value: DEFAULT_URL, source: 'default' as const };
  validateUrl(url);

  return {
    configPath: path,
    profileName: selected?.name,
    url,
    compat,
    identity: pick('identity'),
    db,
    serviceKey: pick('serviceKey'),
    credential: pickCredential(ctx, flags, env, profile, db.value),
    wire: PROFILES[compat.value],
  };
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
  const local = storePaths(db, ctx.cwd).appKey;
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
