/**
 * The service's public key for checking the service signature of a card (spec 2.3): given with
 * --service-key, CARDS_SERVICE_KEY or the profile, else the key a local `cards serve` keeps
 * beside its store (src/server/file-home.ts; --db, CARDS_DB or ./cards.json), the way `jwt`
 * finds the local app key. When neither exists, the reason and how to give one, so that no
 * verdict passes the service signature over in silence.
 */
import { existsSync } from 'node:fs';
import { CardsError } from '../core/errors.js';
import type { PublicKey } from '../crypto/keys.js';
import { readPrivateKeyFile } from '../io/key-files.js';
import { fileHome } from '../server/file-home.js';
import type { CommandContext } from './context.js';
import { readPublicKey } from './inputs.js';
import type { Settings } from './settings.js';

interface ServiceKey {
  readonly key: PublicKey;
  /** Where the key came from, for people. */
  readonly from: string;
  /** Given by the user (a card without a service signature then fails) or found beside a store. */
  readonly explicit: boolean;
}

const SOURCE_NAMES = {
  flag: '--service-key',
  env: 'CARDS_SERVICE_KEY',
  config: 'the config profile',
  default: 'the default',
} as const;

/** How to give the key, for a "not checked" line or an error. */
export const SERVICE_KEY_HINT =
  'pass --service-key KEY|FILE (the "service key:" line of `cards serve`; `cards key service --db STORE` prints it for a local store, `cards key public STORE.service-key.pem` too), or --db STORE to use a local store\'s key';

/** The key of the local `cards serve` store named by the settings, if it has one beside it. */
function localServiceKeyFile(ctx: CommandContext, db: string): string | undefined {
  const file = fileHome(db, ctx.cwd).serviceKey;
  return existsSync(file) ? file : undefined;
}

export function findServiceKey(ctx: CommandContext, settings: Settings): ServiceKey | undefined {
  if (settings.serviceKey) {
    const { value, source } = settings.serviceKey;
    return { key: readPublicKey(ctx, value), from: SOURCE_NAMES[source], explicit: true };
  }
  const file = localServiceKeyFile(ctx, settings.db.value);
  if (file === undefined) return undefined;
  return {
    key: readPrivateKeyFile(file, 'Service key').key.publicKey,
    from: `the local store's service key ${file}`,
    explicit: false,
  };
}

/** The local store's service key, or FILE_NOT_FOUND saying how to get one. */
export function requireLocalServiceKey(
  ctx: CommandContext,
  db: string,
): { file: string; key: PublicKey } {
  const file = localServiceKeyFile(ctx, db);
  if (file === undefined)
    throw new CardsError(
      'FILE_NOT_FOUND',
      `No service key beside the store ${db} (looked for ${fileHome(db, ctx.cwd).serviceKey}).`,
      {
        hint: '`cards serve --db STORE` makes it on first start; pass --db STORE (or set CARDS_DB) to name the store',
      },
    );
  return { file, key: readPrivateKeyFile(file, 'Service key').key.publicKey };
}
