/**
 * `cards serve`'s settings, through the same layers as every other command (settings.ts): flag >
 * environment > config profile > default, each value with its source, so `cards config` shows
 * them too. The profile gives `db` and `compat`, which the server and its clients share; the
 * rest are the server's own (the profile's `serviceKey` and CARDS_SERVICE_KEY are a public key
 * for `inspect`; the private key a server signs with is --service-key or CARDS_SERVICE_KEY_FILE).
 * Environment switches mean what they say: CARDS_QUIET=0 and CARDS_NO_CORS=false are off,
 * 1/true/yes on, anything else a usage error naming the variable.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { PROFILES, type ProfileName } from '../core/profile.js';
import {
  DEFAULT_COMPACT_BYTES,
  DEFAULT_HOST,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  isStoreUrl,
} from '../server/defaults.js';
import { DEFAULT_LOG_INTERVAL_MS } from '../server/log-setup.js';
import type { ServerOptions } from '../server/start.js';
import type { CommandContext } from './context.js';
import { isInlinePublicKey } from './inputs.js';
import { pickCompat, pickDb, settingLayers, type SettingLayers, type Sourced } from './settings.js';

/** `cards serve`'s flags (commander's camelCase names); none has a commander default. */
export interface ServeFlags {
  profile?: string;
  host?: string;
  port?: string;
  db?: string;
  serviceKey?: string;
  jwtKey?: string[];
  compat?: string;
  appId?: string;
  appKeyId?: string;
  /** commander's `--no-cors`: false when the flag is given. */
  cors?: boolean;
  quiet?: boolean;
  logFormat?: string;
  maxConnections?: string;
  requestTimeout?: string;
  clockSkew?: string;
  compactBytes?: string;
  store?: string;
  poolSize?: string;
  statementTimeout?: string;
  adminToken?: string;
  /** commander's `--no-admin`: false when the flag is given. */
  admin?: boolean;
  /** Nothing on disk: a memory store, keys made in memory. */
  memory?: boolean;
  /** A seed file (`cards seed`'s format) to create before listening. */
  seed?: string;
  /** Written atomically with the URL, service key and pid once listening. */
  readyFile?: string;
  /** One JSON start-up line on stdout instead of the banner. */
  json?: boolean;
  /** commander's `--no-log`: false when the flag is given. */
  log?: boolean;
  logOrigin?: string;
  logInterval?: string;
  witness?: string[];
  witnessKey?: string[];
}

export type LogFormat = 'text' | 'json';

export interface ServeSettings {
  readonly configPath: string;
  readonly profileName: string | undefined;
  readonly host: Sourced<string>;
  readonly port: Sourced<number>;
  readonly db: Sourced<string>;
  /** Unset: the service key kept beside the store. */
  readonly serviceKey: Sourced<string> | undefined;
  /** Unset: trust the local app key kept beside the store. */
  readonly jwtKeys: Sourced<readonly string[]> | undefined;
  readonly compat: Sourced<ProfileName>;
  readonly appId: Sourced<string> | undefined;
  readonly appKeyId: Sourced<string> | undefined;
  readonly cors: Sourced<boolean>;
  readonly quiet: Sourced<boolean>;
  readonly logFormat: Sourced<LogFormat>;
  readonly maxConnections: Sourced<number>;
  readonly requestTimeout: Sourced<number>;
  /** Token clock skew allowed, in seconds: widens exp (default 0) and iat/nbf (default 5). */
  readonly clockSkew: Sourced<number>;
  readonly compactBytes: Sourced<number>;
  /**
   * The store to open: `--store`/CARDS_STORE (a PostgreSQL URL or a JSON file), else `--db` when
   * set anywhere, else DATABASE_URL, else the default file (src/server/open-store.ts).
   */
  readonly store: Sourced<string>;
  readonly poolSize: Sourced<number>;
  readonly statementTimeout: Sourced<number>;
  readonly admin: Sourced<boolean>;
  /** Unset: the token kept beside the store, made on first start. */
  readonly adminToken: Sourced<string> | undefined;
  readonly memory: Sourced<boolean>;
  readonly seed: Sourced<string> | undefined;
  readonly readyFile: Sourced<string> | undefined;
  readonly json: boolean;
  /** The transparency log (issue 16): on unless --no-log / CARDS_NO_LOG. */
  readonly log: Sourced<boolean>;
  readonly logOrigin: Sourced<string> | undefined;
  readonly logInterval: Sourced<number>;
  /** Witness URLs and their keys, paired in order (--witness URL --witness-key VKEY). */
  readonly witnesses: readonly { readonly url: string; readonly vkey: string }[];
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

/** The name a bad value is reported under: the flag, or the variable it came from. */
const named = (source: Sourced<unknown>['source'], flag: string, variable: string): string =>
  source === 'env' ? variable : flag;

function pickInteger(
  layers: SettingLayers,
  flag: string | undefined,
  names: [flag: string, variable: string],
  fallback: number,
  [min, max]: [number, number],
): Sourced<number> {
  const raw = layers.pick(flag, names[1]);
  if (raw === undefined) return { value: fallback, source: 'default' };
  const n = /^\d+$/.test(raw.value) ? Number(raw.value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usage(
      `${named(raw.source, ...names)} must be an integer from ${min} to ${max}, got "${raw.value}".`,
    );
  return { value: n, source: raw.source };
}

/** A switch: the flag turns it on; the variable says 1/true/yes or 0/false/no. */
function pickSwitch(layers: SettingLayers, flag: boolean, variable: string): Sourced<boolean> {
  if (flag) return { value: true, source: 'flag' };
  const raw = layers.env(variable);
  if (raw === undefined) return { value: false, source: 'default' };
  const word = raw.trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(word)) return { value: true, source: 'env' };
  if (['0', 'false', 'no'].includes(word)) return { value: false, source: 'env' };
  throw usage(`${variable} must be 1, true or yes (on) or 0, false or no (off), got "${raw}".`);
}

/**
 * --service-key or CARDS_SERVICE_KEY_FILE: the private key file serve signs with. Not
 * CARDS_SERVICE_KEY, the public key `inspect` checks against; a private key file there (what it
 * meant to serve before) is refused rather than ignored, or serve would sign with a key of its own.
 */
function pickServiceKeyFile(
  layers: SettingLayers,
  flag: string | undefined,
  cwd: string,
): Sourced<string> | undefined {
  const picked = layers.pick(flag, 'CARDS_SERVICE_KEY_FILE');
  const publicKey = layers.env('CARDS_SERVICE_KEY');
  if (picked === undefined && publicKey !== undefined && holdsPrivateKey(resolve(cwd, publicKey)))
    throw usage(
      `CARDS_SERVICE_KEY names a private key file (${publicKey}); serve's private key file is CARDS_SERVICE_KEY_FILE (CARDS_SERVICE_KEY is the public key \`inspect\` checks cards against).`,
    );
  return picked;
}

function holdsPrivateKey(value: string): boolean {
  if (isInlinePublicKey(value)) return false;
  try {
    return /PRIVATE KEY|^MC4CAQAw/.test(readFileSync(value, 'utf8').trim());
  } catch {
    return false;
  }
}

/** `--witness URL` and `--witness-key VKEY`, repeatable, paired in the order given. */
function pairWitnesses(flags: ServeFlags): { url: string; vkey: string }[] {
  const urls = flags.witness ?? [];
  const keys = flags.witnessKey ?? [];
  if (urls.length !== keys.length)
    throw usage(
      `give one --witness-key VKEY for each --witness URL (got ${urls.length} URLs and ${keys.length} keys).`,
    );
  return urls.map((url, i) => {
    if (!/^https?:\/\//.test(url)) throw usage(`--witness "${url}": expected an http(s) URL.`);
    return { url, vkey: keys[i] as string };
  });
}

export function resolveServeSettings(ctx: CommandContext, flags: ServeFlags): ServeSettings {
  const layers = settingLayers(ctx, flags.profile);
  const noLog = pickSwitch(layers, flags.log === false, 'CARDS_NO_LOG');
  const jwtFlag = flags.jwtKey && flags.jwtKey.length > 0 ? flags.jwtKey : undefined;
  const jwtEnv = layers.env('CARDS_JWT_KEY');
  const noCors = pickSwitch(layers, flags.cors === false, 'CARDS_NO_CORS');
  const logFormat = layers.pick(flags.logFormat, 'CARDS_LOG_FORMAT') ?? {
    value: 'text',
    source: 'default' as const,
  };
  if (logFormat.value !== 'text' && logFormat.value !== 'json')
    throw usage(
      `${named(logFormat.source, '--log-format', 'CARDS_LOG_FORMAT')} must be "text" or "json", got "${logFormat.value}".`,
    );
  const memory = pickSwitch(layers, flags.memory === true, 'CARDS_MEMORY');
  if (memory.value && (flags.db !== undefined || flags.store !== undefined))
    throw usage('--memory keeps nothing on disk; it cannot be given with --db or --store.');
  const db = pickDb(layers, flags.db);
  const store =
    layers.pick(flags.store, 'CARDS_STORE') ??
    (db.source === 'default' ? layers.pick(undefined, 'DATABASE_URL') : undefined) ??
    db;
  return {
    configPath: layers.configPath,
    profileName: layers.profileName,
    store,
    memory,
    seed: layers.pick(flags.seed, 'CARDS_SEED'),
    readyFile: layers.pick(flags.readyFile, 'CARDS_READY_FILE'),
    json: flags.json === true,
    admin: (() => {
      const off = pickSwitch(layers, flags.admin === false, 'CARDS_NO_ADMIN');
      return { value: !off.value, source: off.source };
    })(),
    adminToken: layers.pick(flags.adminToken, 'CARDS_ADMIN_TOKEN'),
    poolSize: pickInteger(
      layers,
      flags.poolSize,
      ['--pool-size', 'CARDS_POOL_SIZE'],
      10,
      [1, 1000],
    ),
    statementTimeout: pickInteger(
      layers,
      flags.statementTimeout,
      ['--statement-timeout', 'CARDS_STATEMENT_TIMEOUT'],
      5000,
      [10, 3_600_000],
    ),
    host: layers.pick(flags.host, 'CARDS_HOST') ?? { value: DEFAULT_HOST, source: 'default' },
    port: pickInteger(layers, flags.port, ['--port', 'CARDS_PORT'], DEFAULT_PORT, [0, 65535]),
    db,
    serviceKey: pickServiceKeyFile(layers, flags.serviceKey, ctx.cwd),
    // CARDS_JWT_KEY is one value; readTrustedKeys splits a comma-separated list.
    jwtKeys: jwtFlag
      ? { value: jwtFlag, source: 'flag' }
      : jwtEnv !== undefined
        ? { value: [jwtEnv], source: 'env' }
        : undefined,
    compat: pickCompat(layers, flags.compat),
    appId: layers.pick(flags.appId, 'CARDS_APP_ID'),
    appKeyId: layers.pick(flags.appKeyId, 'CARDS_APP_KEY_ID'),
    cors: { value: !noCors.value, source: noCors.source },
    quiet: pickSwitch(layers, flags.quiet === true, 'CARDS_QUIET'),
    logFormat: { value: logFormat.value, source: logFormat.source },
    maxConnections: pickInteger(
      layers,
      flags.maxConnections,
      ['--max-connections', 'CARDS_MAX_CONNECTIONS'],
      DEFAULT_MAX_CONNECTIONS,
      [1, 1_000_000],
    ),
    requestTimeout: pickInteger(
      layers,
      flags.requestTimeout,
      ['--request-timeout', 'CARDS_REQUEST_TIMEOUT'],
      DEFAULT_REQUEST_TIMEOUT_SECONDS,
      [1, 3600],
    ),
    clockSkew: pickInteger(
      layers,
      flags.clockSkew,
      ['--clock-skew', 'CARDS_CLOCK_SKEW'],
      0,
      [0, 86_400],
    ),
    compactBytes: pickInteger(
      layers,
      flags.compactBytes,
      ['--compact-bytes', 'CARDS_COMPACT_BYTES'],
      DEFAULT_COMPACT_BYTES,
      [1, 2 ** 40],
    ),
    log: { value: !noLog.value, source: noLog.source },
    logOrigin: layers.pick(flags.logOrigin, 'CARDS_LOG_ORIGIN'),
    logInterval: pickInteger(
      layers,
      flags.logInterval,
      ['--log-interval', 'CARDS_LOG_INTERVAL'],
      DEFAULT_LOG_INTERVAL_MS,
      [1, 60_000],
    ),
    witnesses: pairWitnesses(flags),
  };
}

/** The values the server starts with (src/server/start.ts); paths resolved against `cwd`. */
export function serverOptions(
  settings: ServeSettings,
  cwd: string,
  version: string,
): ServerOptions {
  return {
    host: settings.host.value,
    port: settings.port.value,
    store: isStoreUrl(settings.store.value)
      ? settings.store.value
      : resolve(cwd, settings.store.value),
    memory: settings.memory.value,
    poolSize: settings.poolSize.value,
    statementTimeoutMs: settings.statementTimeout.value,
    admin: settings.admin.value,
    ...(settings.adminToken && { adminToken: settings.adminToken.value }),
    ...(settings.serviceKey && { serviceKey: resolve(cwd, settings.serviceKey.value) }),
    jwtKeys: settings.jwtKeys?.value ?? [],
    profile: PROFILES[settings.compat.value],
    ...(settings.appId && { appId: settings.appId.value }),
    ...(settings.appKeyId && { appKeyId: settings.appKeyId.value }),
    cors: settings.cors.value,
    maxConnections: settings.maxConnections.value,
    requestTimeoutSeconds: settings.requestTimeout.value,
    clockSkewSeconds: settings.clockSkew.value,
    compactBytes: settings.compactBytes.value,
    version,
    ...(settings.log.value && {
      log: {
        ...(settings.logOrigin && { origin: settings.logOrigin.value }),
        intervalMs: settings.logInterval.value,
        witnesses: settings.witnesses,
      },
    }),
  };
}
