/**
 * The CLI's config file: named profiles of connection settings, written by `cards init`.
 *
 *   { "version": 1, "default": "local",
 *     "profiles": { "local": { "url": "http://127.0.0.1:8080", "identity": "alice", … } } }
 *
 * Found at CARDS_CONFIG, else <CARDS_HOME>/config.json (~/.cards/config.json). A file that
 * cannot be read as this shape is refused (CONFIG_INVALID), never overwritten.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CardsError } from '../core/errors.js';
import { isProfileName, type ProfileName } from '../core/profile.js';
import type { CommandContext } from './context.js';
import { replaceFileSync } from '../io/fs-durable.js';
import { isInlinePublicKey } from './inputs.js';

export interface ProfileSettings {
  url?: string;
  /** App key file (PEM or base64 DER PKCS#8) that mints tokens. */
  appKey?: string;
  /** The vendor CLI's app credentials JSON {APP_ID, APP_KEY_ID, APP_KEY} (stock tokens). */
  appConfig?: string;
  /** Default identity for commands that take --identity. */
  identity?: string;
  compat?: ProfileName;
  /** Store of a local `cards serve`, where its app key is found. */
  db?: string;
  /** The service's public key (base64 DER SPKI or a file) for `cards inspect`. */
  serviceKey?: string;
}

export interface ConfigFile {
  version: 1;
  default?: string;
  profiles: Record<string, ProfileSettings>;
}

const KEYS = ['url', 'appKey', 'appConfig', 'identity', 'compat', 'db', 'serviceKey'] as const;
const PATH_KEYS = new Set(['appKey', 'appConfig', 'db']);

export function configPath(ctx: CommandContext): string {
  const explicit = ctx.env.CARDS_CONFIG;
  return explicit ? resolve(ctx.cwd, explicit) : join(ctx.home, 'config.json');
}

const invalid = (path: string, why: string): CardsError =>
  new CardsError('CONFIG_INVALID', `Configuration file ${path} is invalid: ${why}.`, {
    hint: 'fix or remove it, or write a fresh one with `cards init`',
  });

/** Reads the config file; an absent file is an empty config. */
export function readConfig(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, profiles: {} };
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid(path, 'not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw invalid(path, 'expected a JSON object');
  const raw = json as Record<string, unknown>;
  if (raw.version !== 1) throw invalid(path, `"version" must be 1`);
  if (raw.default !== undefined && typeof raw.default !== 'string')
    throw invalid(path, '"default" must be a profile name');
  const profiles: Record<string, ProfileSettings> = {};
  const rawProfiles = raw.profiles ?? {};
  if (typeof rawProfiles !== 'object' || rawProfiles === null || Array.isArray(rawProfiles))
    throw invalid(path, '"profiles" must be an object');
  for (const [name, value] of Object.entries(rawProfiles as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw invalid(path, `profile "${name}" must be an object`);
    const profile: ProfileSettings = {};
    for (const [key, setting] of Object.entries(value as Record<string, unknown>)) {
      if (!(KEYS as readonly string[]).includes(key))
        throw invalid(
          path,
          `profile "${name}": unknown setting "${key}" (known: ${KEYS.join(', ')})`,
        );
      if (typeof setting !== 'string' || setting === '')
        throw invalid(path, `profile "${name}": "${key}" must be a non-empty string`);
      if (key === 'compat' && !isProfileName(setting))
        throw invalid(path, `profile "${name}": "compat" must be "service" or "virgil"`);
      // Relative paths in a profile are relative to the config file (docs/cli.md, "Settings, profiles and the keystore"):
      // `serviceKey` too, unless it holds the key itself rather than a file's name.
      const isPath = PATH_KEYS.has(key) || (key === 'serviceKey' && !isInlinePublicKey(setting));
      const resolved = isPath ? resolve(dirname(path), setting) : setting;
      (profile as Record<string, string>)[key] = resolved;
    }
    profiles[name] = profile;
  }
  const config: ConfigFile = { version: 1, profiles };
  if (typeof raw.default === 'string') config.default = raw.default;
  return config;
}

/** Writes the config file atomically, folder 0700 and file 0600 (it may name key files). */
export function writeConfig(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  replaceFileSync(path, `${JSON.stringify(config, null, 2)}\n`, 0o600);
}

/** The profile in force: --profile, else CARDS_PROFILE, else the file's default. */
export function selectProfile(
  config: ConfigFile,
  path: string,
  requested: string | undefined,
): { name: string; settings: ProfileSettings } | undefined {
  const name = requested ?? config.default;
  if (name === undefined) return undefined;
  const settings = config.profiles[name];
  if (settings === undefined) {
    const known = Object.keys(config.profiles);
    if (requested === undefined) throw invalid(path, `"default" names unknown profile "${name}"`);
    throw new CardsError('CONFIG_INVALID', `No profile "${name}" in ${path}.`, {
      hint: known.length
        ? `known profiles: ${known.join(', ')}; add one with \`cards init --profile ${name}\``
        : `create it with \`cards init --profile ${name}\``,
    });
  }
  return { name, settings };
}
