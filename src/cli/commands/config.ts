/** `cards config`: the config file, its profiles, and each setting in force with its source. */
import { readConfig } from '../config-file.js';
import type { CommandContext } from '../context.js';
import { resolveSettings, type ConnectionFlags, type Source } from '../settings.js';

export interface ConfigResult {
  path: string;
  profiles: string[];
  defaultProfile: string | null;
  activeProfile: string | null;
  home: string;
  settings: Record<string, { value: string; source: Source } | null>;
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
  };
}
