/**
 * The CLI's config file: named profiles of settings, written by `cards init` and `cards config
 * set`, read by every command as the 'config' layer of its flags (value-sources.ts).
 *
 *   { "version": 1, "default": "local",
 *     "profiles": { "local": { "url": "http://127.0.0.1:8080", "identity": "alice", … } } }
 *
 * Found at CARDS_CONFIG, else <CARDS_HOME>/config.json (~/.cards/config.json); a lowdb document
 * (json-document.ts), mode 0600 (it may name key files). A file that cannot be read as this
 * shape is refused (CONFIG_INVALID), never overwritten.
 */
import { dirname, join, resolve } from 'node:path';
import type { LowSync } from 'lowdb';
import { CardsError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { isProfileName } from '../core/profile.js';
import { DEFAULT_URL } from '../server/defaults.js';
import type { CommandContext } from './context.js';
import { isInlinePublicKey } from './inputs.js';
import { openJsonDocument } from './json-document.js';

/** The settings a profile may hold; each is the value of the flag of the same name. */
const PROFILE_KEYS = [
  'url',
  'appKey',
  'appConfig',
  'identity',
  'compat',
  'db',
  'serviceKey',
  'adminToken',
  'logKey',
] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
/** The settings by their flags' names (`app-key`), as `cards config set` takes them too. */
export const SETTING_NAMES = PROFILE_KEYS.map((key) =>
  key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
).join(', ');
export type ProfileSettings = Partial<Record<ProfileKey, string>>;

interface ConfigFile {
  version: 1;
  default?: string;
  profiles: Record<string, ProfileSettings>;
}

/** Settings that name files (`serviceKey` too when it does not hold the key itself). */
const PATH_KEYS = new Set<string>(['appKey', 'appConfig', 'db']);
const namesFile = (key: ProfileKey, value: string): boolean =>
  PATH_KEYS.has(key) || (key === 'serviceKey' && !isInlinePublicKey(value));

/** A setting by its flag's name (`app-key`) or the profile's (`appKey`). */
export function profileKeyOf(name: string): ProfileKey | undefined {
  const key = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return (PROFILE_KEYS as readonly string[]).includes(key) ? (key as ProfileKey) : undefined;
}

/**
 * `HOST:PORT` with no scheme (`localhost:8080`, `127.0.0.1:8080`, `[::1]:8080`) is read as
 * `http://HOST:PORT`, as curl reads it; anything else is left as given.
 */
export const withScheme = (url: string): string =>
  /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d+(\/.*)?$/.test(url) ? `http://${url}` : url;

/**
 * A service URL written with a user or password is refused (USAGE, the URL shown without them,
 * `where` it was given): they are sent nowhere (the token authenticates, spec section 5), and
 * every line that shows the URL (--debug, an error) would show the password.
 */
export function refuseUrlCredentials(url: URL, where: string): void {
  if (url.username === '' && url.password === '') return;
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  throw new CardsError(
    'USAGE',
    `The service URL ${shown.href} (${where}) is written with a user or password, which cards never sends: a Cards service takes a token.`,
    { hint: 'remove the user and password from the URL' },
  );
}

/**
 * A value as `cards init` and `cards config set` keep it in a profile: `compat` one of the wire
 * profiles, `url` an http(s) URL, and a file's name absolute against `cwd` (`~/…` as a shell
 * reads it), so the profile works from any folder.
 */
export function profileValue(ctx: CommandContext, key: ProfileKey, given: string): string {
  const value = key === 'url' ? withScheme(given) : given;
  if (key === 'compat' && !isProfileName(value))
    throw new CardsError('USAGE', `compat must be "service" or "virgil", got "${value}".`);
  if (key === 'url' && !/^https?:\/\/[^/]/.test(value))
    throw new CardsError('USAGE', `"${value}" is not an http(s) URL.`, {
      hint: `for example ${DEFAULT_URL}`,
    });
  if (key === 'url' && URL.canParse(value))
    refuseUrlCredentials(new URL(value), 'to keep in the profile');
  if (!namesFile(key, value)) return value;
  const home = ctx.env.HOME;
  return resolve(ctx.cwd, home && /^~(\/|$)/.test(value) ? home + value.slice(1) : value);
}

export function configPath(ctx: CommandContext): string {
  const explicit = ctx.env.CARDS_CONFIG;
  return explicit ? resolve(ctx.cwd, explicit) : join(ctx.home, 'config.json');
}

const invalid = (path: string, why: string): CardsError =>
  new CardsError('CONFIG_INVALID', `Configuration file ${path} is invalid: ${why}.`, {
    hint: 'fix or remove it, or write a fresh one with `cards init`',
  });

function decode(path: string, text: string): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid(path, 'not JSON');
  }
  if (!isObject(json)) throw invalid(path, 'expected a JSON object');
  if (json.version !== 1) throw invalid(path, `"version" must be 1`);
  if (json.default !== undefined && typeof json.default !== 'string')
    throw invalid(path, '"default" must be a profile name');
  const profiles = json.profiles ?? {};
  if (!isObject(profiles)) throw invalid(path, '"profiles" must be an object');
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isObject(profile)) throw invalid(path, `profile "${name}" must be an object`);
    for (const [key, setting] of Object.entries(profile)) {
      if (!(PROFILE_KEYS as readonly string[]).includes(key))
        throw invalid(
          path,
          `profile "${name}": unknown setting "${key}" (known: ${PROFILE_KEYS.join(', ')})`,
        );
      if (typeof setting !== 'string' || setting === '')
        throw invalid(path, `profile "${name}": "${key}" must be a non-empty string`);
      if (key === 'compat' && !isProfileName(setting))
        throw invalid(path, `profile "${name}": "compat" must be "service" or "virgil"`);
    }
  }
  return json as unknown as ConfigFile;
}

/** The config file as a lowdb document; an absent file is an empty config. */
export function openConfig(path: string): LowSync<ConfigFile> {
  return openJsonDocument(path, (text) => decode(path, text), { version: 1, profiles: {} });
}

/**
 * A profile's settings with the files it names made absolute against the config file's folder
 * (docs/cli.md, "Settings, profiles and the keystore"): `serviceKey` too, unless it holds the
 * key itself rather than a file's name.
 */
function resolvePaths(path: string, profile: ProfileSettings): ProfileSettings {
  const resolved: ProfileSettings = {};
  for (const [key, value] of Object.entries(profile) as [ProfileKey, string][]) {
    resolved[key] = namesFile(key, value) ? resolve(dirname(path), value) : value;
  }
  return resolved;
}

/** The profile in force: `requested` (--profile, CARDS_PROFILE), else the file's default. */
export function selectProfile(
  path: string,
  requested: string | undefined,
): { name: string; settings: ProfileSettings } | undefined {
  const config = openConfig(path).data;
  const name = requested ?? config.default;
  if (name === undefined) return undefined;
  const settings = config.profiles[name];
  if (settings === undefined) {
    if (requested === undefined) throw invalid(path, `"default" names unknown profile "${name}"`);
    throw unknownProfile(path, name, config);
  }
  return { name, settings: resolvePaths(path, settings) };
}

export function unknownProfile(path: string, name: string, config: ConfigFile): CardsError {
  const known = Object.keys(config.profiles);
  return new CardsError('CONFIG_INVALID', `No profile "${name}" in ${path}.`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}; add one with \`cards init --profile ${name}\``
      : `create it with \`cards init --profile ${name}\``,
  });
}
