/**
 * The flags several commands share, each declared once: a commander Option with its environment
 * variable (`.env()`), its default (`.default()`; what the server or the client shares comes
 * from src/server/defaults.ts or src/client/defaults.ts), its allowed values (`.choices()`) or
 * parser (`.argParser()`), and the config profile setting it may come from (`fromProfile`).
 * Also the parsers, and the words of a value a flag cannot take. value-sources.ts layers the
 * values. Loads nothing heavy: `cards --help` reads it.
 */
import { InvalidArgumentError, Option, type Argument } from 'commander';
import { DEFAULT_TIMEOUT_MS } from '../client/defaults.js';
import { CardsError } from '../core/errors.js';
import { DEFAULT_DB, DEFAULT_URL } from '../server/defaults.js';
import type { KeyTypeName } from '../crypto/signing-key.js';
import type { ProfileKey } from './config-file.js';

/** The profile setting an option reads, and how its value follows from the setting's. */
interface ProfileSetting {
  readonly key: ProfileKey;
  /** The option's raw value from the setting's; undefined: the setting gives it none. */
  readonly derive?: (value: string) => string | undefined;
}

const PROFILE_SETTING = new WeakMap<Option, ProfileSetting>();

/**
 * Marks an option whose value a config profile may give: its setting `key`, as it is or
 * through `derive` (serve's --host and --port from the profile's url).
 */
export function fromProfile(
  option: Option,
  key: ProfileKey,
  derive?: ProfileSetting['derive'],
): Option {
  PROFILE_SETTING.set(option, { key, ...(derive && { derive }) });
  return option;
}

/** The profile setting an option reads, if any. */
export const profileSettingOf = (option: Option): ProfileSetting | undefined =>
  PROFILE_SETTING.get(option);

/** What an argument or flag marked as a card id takes: an id, or an id or a card file. */
export type CardIdKind = 'id' | 'id-or-file';

const CARD_ID = new WeakMap<Argument | Option, CardIdKind>();

/**
 * Marks an argument or flag that takes a card id: the run funnel (card-ids.ts) turns a unique
 * prefix of at least 8 hex digits into the whole id before the command runs, as git does.
 */
export function cardIdInput<T extends Argument | Option>(item: T, kind: CardIdKind = 'id'): T {
  CARD_ID.set(item, kind);
  return item;
}

/** Whether an argument or flag takes a card id, and how. */
export const cardIdKindOf = (item: Argument | Option): CardIdKind | undefined => CARD_ID.get(item);

/** A value a flag, a variable or a profile setting cannot take, in the one wording. */
export function invalidValue(where: string, raw: string, why: string): CardsError {
  const choices = /^Allowed choices are (.*)\.$/.exec(why)?.[1];
  return new CardsError(
    'USAGE',
    choices ? `${where} must be one of ${choices}, got "${raw}".` : `${where} ${why}`,
  );
}

/** A whole number from `min` to `max`. */
export const integer =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}, got "${raw}".`);
    return n;
  };

/** Seconds above 0, fractions allowed. */
function seconds(raw: string): number {
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(value > 0))
    throw new InvalidArgumentError(`must be a number of seconds above 0, got "${raw}".`);
  return value;
}

/** Durations like 30s, 20m, 1h, 7d or plain seconds, as seconds. */
export function duration(raw: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 } as const;
  const value = match ? Number(match[1]) * unit[(match[2] ?? '') as keyof typeof unit] : NaN;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new InvalidArgumentError(`expects a duration like 30s, 20m, 1h or 7d, got "${raw}".`);
  return value;
}

/** A flag given again adds a value: `--signer a=1 --signer b=2`. */
export const repeatable = (value: string, previous: string[] = []): string[] => [
  ...previous,
  value,
];

export const identityFlag = (what = 'the identity it acts for'): Option =>
  fromProfile(new Option('--identity <id>', what).env('CARDS_IDENTITY'), 'identity');

export const dbFlag = (): Option =>
  fromProfile(
    new Option(
      '--db <file>',
      'the JSON store of a local `cards serve` (its keys and admin token sit beside it)',
    )
      .env('CARDS_DB')
      .default(DEFAULT_DB),
    'db',
  );

export const compatFlag = (): Option =>
  fromProfile(
    new Option(
      '--compat <profile>',
      'the wire words: "service" (the Cards spec, `cards serve`) or "virgil" (Virgil\'s cloud and its stock SDK)',
    )
      .choices(['service', 'virgil'])
      .env('CARDS_COMPAT')
      .default('service'),
    'compat',
  );

export const storeFlag = (): Option =>
  new Option(
    '--store <url|file>',
    "the store: a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB) or a JSON store file; default: --db if set, else DATABASE_URL, else --db's default",
  ).env('CARDS_STORE');

export const serviceKeyFlag = (): Option =>
  fromProfile(
    new Option(
      '--service-key <key>',
      "the service's public key (base64 DER SPKI, PEM or a file) that checks its signature; default: the key beside --db's store, if any",
    ).env('CARDS_SERVICE_KEY'),
    'serviceKey',
  );

/** The transparency log's key (C2SP signed-note verifier key), as `cards serve` prints it. */
export const logKeyFlag = (what: string): Option =>
  fromProfile(new Option('--log-key <vkey>', what).env('CARDS_LOG_KEY'), 'logKey');

export const adminTokenFlag = (): Option =>
  fromProfile(
    new Option(
      '--admin-token <token>',
      "the server's admin token (default: the token file beside --db's store)",
    ).env('CARDS_ADMIN_TOKEN'),
    'adminToken',
  );

/** Where the service is. */
const urlFlag = (): Option =>
  fromProfile(
    new Option('--url <url>', 'the service base URL').env('CARDS_URL').default(DEFAULT_URL),
    'url',
  );

const timeoutFlag = (): Option =>
  new Option('--timeout <seconds>', 'give up on a request after this long in all')
    .env('CARDS_TIMEOUT')
    .default(DEFAULT_TIMEOUT_MS / 1000)
    .argParser(seconds);

/**
 * What every command that talks to a service takes (settings.ts reads them); `identity` says
 * what --identity is for this command (tokens for reads are minted for it too).
 */
export const connectionFlags = (identity?: string): Option[] => [
  identityFlag(identity),
  urlFlag(),
  new Option('--token <jwt>', 'an access token to send as is').env('CARDS_TOKEN'),
  timeoutFlag(),
  fromProfile(
    new Option('--app-key <file>', 'an app private key that mints a token per identity').env(
      'CARDS_APP_KEY',
    ),
    'appKey',
  ),
  fromProfile(
    new Option(
      '--app-config <file>',
      'vendor app credentials JSON {APP_ID, APP_KEY_ID, APP_KEY}: mints stock VEDS512 tokens',
    ).env('CARDS_APP_CONFIG'),
    'appConfig',
  ),
  dbFlag(),
  compatFlag(),
];

/**
 * The admin commands' flags: where the server is (--url; --db's store tells a local server and
 * holds its admin token file) and the admin token. The admin API takes no card token, so none
 * of a card connection's credentials, identity, wire words or deadline.
 */
export const adminFlags = (): Option[] => [...serverFlags(), adminTokenFlag(), timeoutFlag()];

/** Where the admin commands' token comes from, as their --help says it. */
export const ADMIN_TOKEN_HELP = `The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's adminToken (sent
to the profile's URL alone), or the token file beside --db's store (sent to the server holding
it alone); a server listening on loopback only needs none.`;

/** Where a server is, and nothing more: --url, and --db's store that tells a local server. */
export const serverFlags = (): Option[] => [urlFlag(), dbFlag()];

/** The card key types the CLI makes (signing-key.ts KEY_TYPES, kept out of `--help`'s load). */
const KEY_TYPE_CHOICES: readonly KeyTypeName[] = [
  'ed25519',
  'p256',
  'rsa2048',
  'rsa3072',
  'rsa4096',
  'rsa8192',
];

/** `--type`: the key type `keygen` and `rotate` make, in the stock client's formats. */
export const keyTypeFlag = (what: string): Option =>
  new Option('--type <type>', what).choices(KEY_TYPE_CHOICES);

export const createdAtFlag = (what = 'created_at, UNIX seconds (default: now)'): Option =>
  new Option('--created-at <seconds>', what).argParser(integer(1, Number.MAX_SAFE_INTEGER));

/**
 * Requests in flight: `cards seed`, `cards serve --seed`, `cards log audit`; also the lookups of
 * a seed rerun and the bundles `cards monitor` fetches at once.
 */
export const DEFAULT_CONCURRENCY = 16;

export const concurrencyFlag = (): Option =>
  new Option('--concurrency <n>', 'requests in flight')
    .default(DEFAULT_CONCURRENCY)
    .argParser(integer(1, 256));

/** What `cards build` and `cards create` take to make a card (with the identity, elsewhere). */
export const buildFlags = (): Option[] => [
  new Option('--key <file>', 'owner private key (default: the keystore key of the identity)'),
  new Option('--new-key', 'make and store a key when the keystore has none for the identity'),
  cardIdInput(new Option('--previous <card-id>', 'the card this one replaces (previous_card_id)')),
  new Option('--signer <name=keyfile>', 'another signer and its private key; repeatable').argParser(
    repeatable,
  ),
  new Option(
    '--extra <field=text|[signer=]json|@file>',
    "extra snapshot: FIELD=TEXT adds a field to the owner's (repeatable), JSON text or @FILE is the owner's whole, SIGNER=JSON another --signer's",
  ).argParser(repeatable),
  createdAtFlag(),
];
