/**
 * The keys a server signs with and trusts, wherever its store is (issue 14):
 * - the service key: `--service-key FILE`; else, beside a JSON store file, the key file made on
 *   first start; else, on PostgreSQL, the key kept in the database (made by the first server to
 *   start, picked up by every other), so all servers sign with one key;
 * - the token keys: `--jwt-key`; else the local app key, beside the JSON store file or kept in
 *   the database the same way.
 * Private keys in the database are the operator's choice (docs/scaling.md says the risk: anyone
 * who can read the table can sign cards and mint tokens); give key files to avoid it.
 */
import { generatePrivateKey, parsePrivateKey, type PrivateKey } from '../crypto/keys.js';
import type { TrustedKey } from '../crypto/tokens.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { FileHome } from './file-home.js';
import { loadOrCreatePrivateKey, readPrivateKeyFile } from './key-files.js';
import type { OpenedStore } from './open-store.js';
import { readTrustedKeys } from './trusted-keys.js';

export interface ServerKeys {
  readonly serviceKey: PrivateKey;
  /** Where the service key came from, for the banner. */
  readonly serviceKeyFrom: string;
  readonly trusted: TrustedKey[];
  /** The banner's "tokens:" line. */
  readonly tokenKeys: string;
  /** The local app key tokens are checked against (none with --jwt-key). */
  readonly appKey?: PrivateKey;
  /** Private key files this start made (worth a warning in a git work tree). */
  readonly createdKeyFiles: readonly string[];
}

export interface ServerKeyOptions {
  readonly serviceKey?: string | undefined;
  readonly jwtKeys: readonly string[];
}

export const SERVICE_KEY_NAME = 'service-key';
export const APP_KEY_NAME = 'app-key';
export const LOG_KEY_NAME = 'log-key';

async function keptKey(store: PostgresStore, name: string): Promise<PrivateKey> {
  const kept = await store.keptKey(name, () => generatePrivateKey().toPem());
  return parsePrivateKey(kept.pem);
}

/** The service key and the trusted token keys of a server on `opened`. */
export async function loadServerKeys(
  opened: OpenedStore,
  options: ServerKeyOptions,
  warn: (message: string) => void,
): Promise<ServerKeys> {
  const files: FileHome | undefined = opened.home;
  const database = opened.store instanceof PostgresStore ? opened.store : undefined;
  let serviceKey: PrivateKey;
  let serviceKeyFrom: string;
  const createdKeyFiles: string[] = [];
  if (options.serviceKey || files) {
    const file = options.serviceKey
      ? readPrivateKeyFile(options.serviceKey)
      : await loadOrCreatePrivateKey((files as NonNullable<typeof files>).serviceKey);
    if (file.warning) warn(file.warning);
    if (file.created) createdKeyFiles.push(file.path);
    serviceKey = file.key;
    serviceKeyFrom = `file ${file.path}`;
  } else if (database) {
    serviceKey = await keptKey(database, SERVICE_KEY_NAME);
    serviceKeyFrom = 'kept in the database (cards_keys)';
  } else {
    serviceKey = generatePrivateKey();
    serviceKeyFrom = 'made for this run';
  }
  if (options.jwtKeys.length > 0) {
    const trusted = await readTrustedKeys(options.jwtKeys);
    const n = trusted.length;
    return {
      serviceKey,
      serviceKeyFrom,
      trusted,
      tokenKeys: `${n} trusted key${n === 1 ? '' : 's'} from --jwt-key`,
      createdKeyFiles,
    };
  }
  if (files) {
    const appKey = await loadOrCreatePrivateKey(files.appKey);
    if (appKey.warning) warn(appKey.warning);
    if (appKey.created) createdKeyFiles.push(appKey.path);
    return {
      serviceKey,
      serviceKeyFrom,
      appKey: appKey.key,
      createdKeyFiles,
      trusted: [{ key: appKey.key.publicKey }],
      tokenKeys: `signed by the local app key ${appKey.path} (mint one with \`cards jwt\`)`,
    };
  }
  if (database) {
    const appKey = await keptKey(database, APP_KEY_NAME);
    return {
      serviceKey,
      serviceKeyFrom,
      appKey,
      createdKeyFiles,
      trusted: [{ key: appKey.publicKey }],
      tokenKeys:
        'signed by the app key kept in the database (cards_keys, name "app-key"; mint one with `cards jwt --store URL`)',
    };
  }
  const appKey = generatePrivateKey();
  return {
    serviceKey,
    serviceKeyFrom,
    appKey,
    createdKeyFiles,
    trusted: [{ key: appKey.publicKey }],
    tokenKeys:
      'signed by an app key made in memory (no file: give --jwt-key to trust your own, or read appKey from --json or --ready-file)',
  };
}

/**
 * The transparency log's own key (issue 16; never the service key): beside a JSON store file,
 * kept in the database on PostgreSQL (every server signs the one log's checkpoints), made for
 * the run in memory.
 */
export async function loadLogKey(
  opened: OpenedStore,
  warn: (message: string) => void,
): Promise<{ key: PrivateKey; createdFile?: string }> {
  if (opened.home) {
    const file = await loadOrCreatePrivateKey(opened.home.logKey);
    if (file.warning) warn(file.warning);
    return { key: file.key, ...(file.created && { createdFile: file.path }) };
  }
  if (opened.store instanceof PostgresStore)
    return { key: await keptKey(opened.store, LOG_KEY_NAME) };
  return { key: generatePrivateKey() };
}
