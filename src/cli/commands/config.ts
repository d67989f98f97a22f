/**
 * `cards config`: the config file, its profiles, and each setting in force with its source:
 * the connection settings of every command, and those `cards serve` would start with.
 */
import { fileHome } from '../../server/file-home.js';
import { readConfig } from '../config-file.js';
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
    compactBytes: serve.compactBytes,
  };
}
