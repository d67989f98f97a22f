/**
 * `cards config`: the config file, its profiles, and each setting in force with its source:
 * the connection settings of every command, and those `cards serve` would start with;
 * `config set` and `config use` change it.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../core/errors.js';
import { isProfileName } from '../../core/profile.js';
import { fileHome } from '../../server/file-home.js';
import { configPath, readConfig, writeConfig, type ProfileSettings } from '../config-file.js';
import type { CommandContext } from '../context.js';
import { resolveServeSettings } from '../serve-settings.js';
import { resolveSettings, type ConnectionFlags, type Source } from '../settings.js';

export type ShownValue = string | number | boolean | readonly string[];
export type Shown = { value: ShownValue; source: Source } | null;

export interface ConfigResult {
  path: string;
  profiles: string[];
  defaultProfile: string | null;
  activeProfile: string | null;
  home: string;
  settings: Record<string, { value: string; source: Source } | null>;
  /** What `cards serve` would start with here (its own flags aside). */
  serve: Record<string, Shown>;
}

export function showConfig(ctx: CommandContext, options: ConnectionFlags): ConfigResult {
  const settings = resolveSettings(ctx, options);
  const config = readConfig(settings.configPath);
  const credential = settings.credential;
  return {
    path: settings.configPath,
    profiles: Object.keys(config.profiles),
    defaultProfile: config.default ?? null,
    activeProfile: settings.profileName ?? null,
    home: ctx.home,
    settings: {
      url: settings.url,
      compat: settings.compat,
      identity: settings.identity ?? null,
      db: settings.db,
      serviceKey: settings.serviceKey ?? null,
      credentials: credential
        ? {
            value:
              credential.kind === 'token'
                ? 'token (given)'
                : `${credential.kind} ${credential.file}`,
            source: credential.source,
          }
        : null,
    },
    serve: serveSettings(ctx, options),
  };
}

/**
 * `serve`'s settings; --service-key is left out (for `config` it names the public key, shown
 * as `settings.serviceKey`); serve's private key file is `serviceKeyFile` (CARDS_SERVICE_KEY_FILE).
 */
function serveSettings(ctx: CommandContext, options: ConnectionFlags): Record<string, Shown> {
  const serve = resolveServeSettings(ctx, {
    ...(options.profile !== undefined && { profile: options.profile }),
    ...(options.db !== undefined && { db: options.db }),
    ...(options.compat !== undefined && { compat: options.compat }),
  });
  const home = fileHome(serve.db.value, ctx.cwd);
  return {
    host: serve.host,
    port: serve.port,
    db: serve.db,
    serviceKeyFile: serve.serviceKey ?? { value: home.serviceKey, source: 'default' },
    jwtKeys: serve.jwtKeys ?? { value: `the local app key ${home.appKey}`, source: 'default' },
    compat: serve.compat,
    appId: serve.appId ?? null,
    appKeyId: serve.appKeyId ?? null,
    cors: serve.cors,
    quiet: serve.quiet,
    logFormat: serve.logFormat,
    maxConnections: serve.maxConnections,
    requestTimeout: serve.requestTimeout,
    clockSkew: serve.clockSkew,
    compactBytes: serve.compactBytes,
    log: serve.log,
    logOrigin: serve.logOrigin ?? {
      value: `cards.local/<hex of ${home.logKey}>`,
      source: 'default',
    },
    logInterval: serve.logInterval,
  };
}

/** `cards config set KEY VALUE` and `cards config use PROFILE` (issue 12.16). */
export interface ConfigSetOptions {
  key: string;
  value: string;
  profile?: string;
}

export interface ConfigChange {
  path: string;
  profile: string;
  settings: ProfileSettings;
  isDefault: boolean;
}

const SETTINGS = {
  url: 'url',
  identity: 'identity',
  compat: 'compat',
  db: 'db',
  'app-key': 'appKey',
  appKey: 'appKey',
  'app-config': 'appConfig',
  appConfig: 'appConfig',
  'service-key': 'serviceKey',
  serviceKey: 'serviceKey',
} as const satisfies Record<string, keyof ProfileSettings>;
const PATHS = new Set<keyof ProfileSettings>(['db', 'appKey', 'appConfig']);

export function configSet(ctx: CommandContext, options: ConfigSetOptions): ConfigChange {
  const key = (SETTINGS as Record<string, keyof ProfileSettings>)[options.key];
  if (key === undefined)
    throw new CardsError('USAGE', `"${options.key}" is not a setting.`, {
      hint: `settings: url, identity, compat, db, app-key, app-config, service-key`,
    });
  if (options.value === '')
    throw new CardsError('USAGE', `The value for ${options.key} is empty.`, {
      hint: 'edit the config file to remove a setting, or `cards init --force` to rewrite it',
    });
  if (key === 'compat' && !isProfileName(options.value))
    throw new CardsError('USAGE', `compat must be "service" or "virgil", got "${options.value}".`);
  if (key === 'url' && !/^https?:\/\/[^/]/.test(options.value))
    throw new CardsError('USAGE', `"${options.value}" is not an http(s) URL.`, {
      hint: 'for example http://127.0.0.1:8080',
    });
  const path = configPath(ctx);
  const config = readConfig(path);
  const profile =
    options.profile ?? (ctx.env.CARDS_PROFILE || undefined) ?? config.default ?? 'default';
  const settings: ProfileSettings = { ...config.profiles[profile] };
  // Paths are stored absolute, so the profile works from any folder.
  (settings as Record<string, string>)[key] = PATHS.has(key)
    ? resolve(ctx.cwd, options.value)
    : options.value;
  config.profiles[profile] = settings;
  config.default ??= profile;
  writeConfig(path, config);
  return { path, profile, settings, isDefault: config.default === profile };
}

export function configUse(ctx: CommandContext, options: { profile: string }): ConfigChange {
  const path = configPath(ctx);
  const config = readConfig(path);
  const settings = config.profiles[options.profile];
  if (settings === undefined) {
    const known = Object.keys(config.profiles);
    throw new CardsError('CONFIG_INVALID', `No profile "${options.profile}" in ${path}.`, {
      hint: known.length
        ? `known profiles: ${known.join(', ')}`
        : `make one with \`cards init --profile ${options.profile}\``,
    });
  }
  config.default = options.profile;
  writeConfig(path, config);
  return { path, profile: options.profile, settings, isDefault: true };
}
