/**
 * `cards init`: writes a profile into the config file. On a terminal it asks for what the
 * flags did not give; without one (or with --yes) it takes the flags as they are.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../core/errors.js';
import { isProfileName } from '../../core/profile.js';
import { DEFAULT_URL } from '../../server/defaults.js';
import { configPath, readConfig, writeConfig, type ProfileSettings } from '../config-file.js';
import type { CommandContext } from '../context.js';
import { ask, canPrompt, confirm } from '../prompts.js';
import { isInlinePublicKey } from '../inputs.js';

export interface InitOptions {
  profile?: string;
  url?: string;
  identity?: string;
  compat?: string;
  appKey?: string;
  appConfig?: string;
  db?: string;
  serviceKey?: string;
  default?: boolean;
  force?: boolean;
  yes?: boolean;
}

export interface InitResult {
  path: string;
  profile: string;
  settings: ProfileSettings;
  isDefault: boolean;
  replaced: boolean;
}

const FLAG_HINT = 'pass the settings as flags (--url, --identity, --compat, --app-key) with --yes';

export async function init(ctx: CommandContext, options: InitOptions): Promise<InitResult> {
  const path = configPath(ctx);
  const config = readConfig(path);
  const interactive = canPrompt(ctx) && options.yes !== true;
  let name = options.profile;
  const given: Record<string, string | undefined> = {
    url: options.url,
    identity: options.identity,
    compat: options.compat,
    appKey: options.appKey,
  };
  if (interactive) {
    const existing = config.profiles[name ?? 'default'] ?? {};
    const answers = await ask(
      ctx,
      [
        ...(name === undefined
          ? [
              {
                type: 'input' as const,
                name: 'profile',
                message: 'Profile name',
                default: 'default',
              },
            ]
          : []),
        ...(given.url === undefined
          ? [
              {
                type: 'input' as const,
                name: 'url',
                message: 'Service URL',
                default: existing.url ?? DEFAULT_URL,
              },
            ]
          : []),
        ...(given.identity === undefined
          ? [
              {
                type: 'input' as const,
                name: 'identity',
                message: 'Your identity (blank for none)',
                default: existing.identity ?? '',
              },
            ]
          : []),
        ...(given.compat === undefined
          ? [
              {
                type: 'select' as const,
                name: 'compat',
                message: 'Wire words',
                choices: ['service', 'virgil'],
                default: existing.compat ?? 'service',
              },
            ]
          : []),
        ...(given.appKey === undefined
          ? [
              {
                type: 'input' as const,
                name: 'appKey',
                message: 'App key file that mints tokens (blank: the local `cards serve` key)',
                default: existing.appKey ?? '',
              },
            ]
          : []),
      ],
      FLAG_HINT,
    );
    for (const [key, value] of Object.entries(answers))
      if (typeof value === 'string') given[key] = value;
    name ??=
      typeof answers.profile === 'string' && answers.profile !== '' ? answers.profile : 'default';
  }
  name ??= 'default';
  if (given.compat !== undefined && given.compat !== '' && !isProfileName(given.compat))
    throw new CardsError('USAGE', `--compat must be "service" or "virgil", got "${given.compat}".`);
  const settings: ProfileSettings = {};
  const set = (key: keyof ProfileSettings, value: string | undefined, path = false): void => {
    if (value !== undefined && value !== '')
      (settings as Record<string, string>)[key] = path ? resolve(ctx.cwd, value) : value;
  };
  set('url', given.url);
  set('identity', given.identity);
  set('compat', given.compat);
  set('appKey', given.appKey, true);
  set('appConfig', options.appConfig, true);
  set('db', options.db, true);
  // A key file is kept by its absolute path, like every path in a profile; an inline key as is.
  set(
    'serviceKey',
    options.serviceKey,
    options.serviceKey !== undefined && !isInlinePublicKey(options.serviceKey),
  );
  if (settings.url !== undefined) {
    try {
      new URL(settings.url);
    } catch {
      throw new CardsError('USAGE', `"${settings.url}" is not a URL.`, {
        hint: 'for example http://127.0.0.1:8080',
      });
    }
  }
  const replaced = config.profiles[name] !== undefined;
  if (replaced && options.force !== true) {
    const ok =
      interactive &&
      (await confirm(ctx, `Profile "${name}" exists in ${path}. Replace it?`, '--force'));
    if (!ok)
      throw new CardsError('FILE_EXISTS', `Profile "${name}" exists already in ${path}.`, {
        hint: 'pass --force to replace it, or --profile NAME for another',
      });
  }
  config.profiles[name] = settings;
  const isDefault =
    options.default === true || config.default === undefined || config.default === name;
  if (isDefault) config.default = name;
  writeConfig(path, config);
  return { path, profile: name, settings, isDefault, replaced };
}
