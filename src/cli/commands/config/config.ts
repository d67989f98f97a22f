/**
 * `cards config`: the config file, its profiles, and each setting in force with its source:
 * the connection settings of every command, and those `cards serve` would start with;
 * `config set` and `config use` change it.
 */
import type { Command } from 'commander';
import { CardsError } from '../../../core/errors.js';
import { fileHome } from '../../../server/file-home.js';
import {
  configPath,
  openConfig,
  profileKeyOf,
  profileValue,
  SETTING_NAMES,
  unknownProfile,
  type ProfileSettings,
} from '../../config-file.js';
import type { CommandContext } from '../../context.js';
import { resolveSettings, type ConnectionFlags, type Setting } from '../../settings.js';
import { resolveOptions, type Source, type Sources } from '../../value-sources.js';

export type ShownValue = string | number | boolean | readonly string[];
export type Shown = { value: ShownValue; source: Source } | null;

export interface ConfigResult {
  path: string;
  profiles: string[];
  defaultProfile: string | null;
  activeProfile: string | null;
  home: string;
  settings: Record<string, Setting<string | number, Source | 'address'> | null>;
  /** What `cards serve` would start with here (its own flags aside). */
  serve: Record<string, Shown>;
}

export function showConfig(
  ctx: CommandContext,
  options: ConnectionFlags,
  command: Command,
): ConfigResult {
  const settings = resolveSettings(ctx, options);
  const path = configPath(ctx);
  const config = openConfig(path).data;
  const credential = settings.credential;
  return {
    path,
    profiles: Object.keys(config.profiles),
    defaultProfile: config.default ?? null,
    activeProfile: options.profile ?? null,
    home: ctx.home,
    settings: {
      url: settings.url,
      compat: settings.compat,
      identity: settings.identity ?? null,
      db: settings.db,
      serviceKey: settings.serviceKey ?? null,
      timeout: settings.timeout,
      credentials: credential
        ? {
            value: `${credential.kind === 'token' ? 'token (given)' : `${credential.kind} ${credential.file}`}${settings.withheld === undefined ? '' : ` (withheld: ${settings.withheld})`}`,
            source: credential.source,
          }
        : null,
    },
    serve: serveSettings(ctx, options, command),
  };
}

/** serve's flags that `config` names otherwise (the file, not a key; a list), or leaves out. */
const SERVE_NAMES: Record<string, string | null> = {
  serviceKey: 'serviceKeyFile',
  jwtKey: 'jwtKeys',
  adminToken: null,
};

/**
 * What `cards serve` would start with: every flag of its own declaration, layered by the one
 * resolver with the --db and --compat given to `config` (for `config`, --service-key names the
 * public key, shown as `settings.serviceKey`; serve's private key file is `serviceKeyFile`).
 * The admin token is a secret: left out.
 */
function serveSettings(
  ctx: CommandContext,
  options: ConnectionFlags,
  command: Command,
): Record<string, Shown> {
  const serve = command.parent?.commands.find((c) => c.name() === 'serve') as Command;
  const given = (['db', 'compat'] as const).filter((key) => options.sources?.[key] === 'flag');
  serve.parseOptions(given.flatMap((key) => [`--${key}`, String(options[key])]));
  const values = resolveOptions<Record<string, ShownValue> & { sources: Sources }>(serve, ctx);
  const home = fileHome(String(values.db), ctx.cwd);
  const defaults: Record<string, ShownValue> = {
    serviceKeyFile: home.serviceKey,
    jwtKeys: `the local app key ${home.appKey}`,
    logOrigin: `cards.local/<hex of ${home.logKey}>`,
  };
  const shown: Record<string, Shown> = {};
  for (const option of serve.options) {
    const key = option.attributeName();
    const name = SERVE_NAMES[key] === undefined ? key : SERVE_NAMES[key];
    if (name === null) continue;
    const value = values[key];
    const source = values.sources[key];
    const fallback = defaults[name];
    shown[name] =
      value !== undefined && source !== undefined
        ? { value, source }
        : fallback !== undefined
          ? { value: fallback, source: 'default' }
          : null;
  }
  return shown;
}

/** `cards config set KEY VALUE` and `cards config use PROFILE`. */
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

export function configSet(ctx: CommandContext, options: ConfigSetOptions): ConfigChange {
  const key = profileKeyOf(options.key);
  if (key === undefined)
    throw new CardsError('USAGE', `"${options.key}" is not a setting.`, {
      hint: `settings: ${SETTING_NAMES}`,
    });
  if (options.value === '')
    throw new CardsError('USAGE', `The value for ${options.key} is empty.`, {
      hint: 'edit the config file to remove a setting, or `cards init --force` to rewrite it',
    });
  const value = profileValue(ctx, key, options.value);
  const path = configPath(ctx);
  const document = openConfig(path);
  const config = document.data;
  const profile = options.profile ?? config.default ?? 'default';
  const settings: ProfileSettings = { ...config.profiles[profile] };
  settings[key] = value;
  config.profiles[profile] = settings;
  config.default ??= profile;
  document.write();
  return { path, profile, settings, isDefault: config.default === profile };
}

export function configUse(ctx: CommandContext, options: { profile: string }): ConfigChange {
  const path = configPath(ctx);
  const document = openConfig(path);
  const config = document.data;
  const settings = config.profiles[options.profile];
  if (settings === undefined) throw unknownProfile(path, options.profile, config);
  config.default = options.profile;
  document.write();
  return { path, profile: options.profile, settings, isDefault: true };
}
