/**
 * The secrets a server signs and checks with, each given by the operator or else kept by its
 * engine (src/store/engine.ts `secrets`: files beside a JSON store, rows of the PostgreSQL
 * database every server on it shares, or made for the run in memory):
 * - the service key: `--service-key FILE`, else kept as "service-key";
 * - the token keys: `--jwt-key`, else the app key, kept as "app-key";
 * - the transparency log's own key ("log-key"; never the service key), when the log is on;
 * - the admin API's token: `--admin-token`, else kept as "admin-token", unless the API is off.
 * Private keys in a database are the operator's choice (docs/scaling.md says the risk: anyone
 * who can read the table can sign cards and mint tokens); give key files to avoid it.
 */
import { randomBytes } from 'node:crypto';
import { CardsError } from '../core/errors.js';
import { generatePrivateKey, type PrivateKey } from '../crypto/keys.js';
import type { TrustedKey } from '../crypto/tokens.js';
import { generateAdminToken } from '../http/admin-auth.js';
import type { Engine, KeptSecret, SecretName } from '../store/engine.js';
import { parseKeptKey, readPrivateKeyFile } from '../io/key-files.js';
import { readTrustedKeys } from './trusted-keys.js';

export const APP_KEY_NAME: SecretName = 'app-key';

export interface AdminToken {
  readonly token: string;
  readonly created: boolean;
  /** Where it came from, for the banner: "--admin-token", "file …", "kept in the database …". */
  readonly from: string;
}

export interface ServerSecrets {
  readonly serviceKey: PrivateKey;
  /** Where the service key came from, for the banner. */
  readonly serviceKeyFrom: string;
  readonly trusted: TrustedKey[];
  /** The banner's "tokens:" line. */
  readonly tokenKeys: string;
  /** The kept app key tokens are checked against (none with --jwt-key), and its file if any. */
  readonly appKey?: PrivateKey;
  readonly appKeyFile?: string;
  /** The log's key, when the log is on. */
  readonly logKey?: PrivateKey;
  /** Undefined with the admin API off. */
  readonly adminToken?: AdminToken;
  /** Private key files this start made (worth a warning in a git work tree). */
  readonly createdKeyFiles: readonly string[];
}

export interface SecretOptions {
  readonly serviceKey?: string | undefined;
  readonly jwtKeys: readonly string[];
  readonly log: boolean;
  readonly admin: boolean;
  readonly adminToken?: string | undefined;
}

const TOKEN_TEXT = /^[\x21-\x7e]{16,512}$/;

export async function loadServerSecrets(
  engine: Engine,
  options: SecretOptions,
  warn: (message: string) => void,
): Promise<ServerSecrets> {
  const createdKeyFiles: string[] = [];
  const kept = async (name: SecretName, make: () => string): Promise<KeptSecret> => {
    const secret = await engine.secrets.keep(name, make);
    if (secret.warning) warn(secret.warning);
    if (secret.created && secret.path !== undefined && name !== 'admin-token')
      createdKeyFiles.push(secret.path);
    return secret;
  };
  const keptKey = async (name: SecretName): Promise<{ key: PrivateKey; secret: KeptSecret }> => {
    const secret = await kept(name, () => generatePrivateKey().toPem());
    return { key: parseKeptKey(secret.value, secret.where), secret };
  };

  let serviceKey: PrivateKey;
  let serviceKeyFrom: string;
  if (options.serviceKey) {
    const file = readPrivateKeyFile(options.serviceKey);
    if (file.warning) warn(file.warning);
    serviceKey = file.key;
    serviceKeyFrom = `file ${file.path}`;
  } else {
    const service = await keptKey('service-key');
    serviceKey = service.key;
    serviceKeyFrom = service.secret.where;
  }

  const n = options.jwtKeys.length;
  const app = n > 0 ? undefined : await keptKey(APP_KEY_NAME);
  const tokens = app
    ? {
        appKey: app.key,
        ...(app.secret.path !== undefined && { appKeyFile: app.secret.path }),
        trusted: [{ key: app.key.publicKey }],
        tokenKeys: !engine.durable
          ? 'signed by an app key made in memory (no file: give --jwt-key to trust your own, or read appKey from --json or --ready-file)'
          : app.secret.path !== undefined
            ? `signed by the local app key ${app.secret.path} (mint one with \`cards jwt\`)`
            : `signed by the app key ${app.secret.where} (mint one with \`cards jwt --store URL\`)`,
      }
    : {
        trusted: await readTrustedKeys(options.jwtKeys),
        tokenKeys: `${n} trusted key${n === 1 ? '' : 's'} from --jwt-key`,
      };

  const logKey = options.log ? (await keptKey('log-key')).key : undefined;
  const adminToken = options.admin
    ? await resolveAdminToken(options.adminToken, engine.durable, () =>
        kept('admin-token', () => generateAdminToken(randomBytes(32))),
      )
    : undefined;
  return {
    serviceKey,
    serviceKeyFrom,
    ...tokens,
    ...(logKey && { logKey }),
    ...(adminToken && { adminToken }),
    createdKeyFiles,
  };
}

/** `--admin-token` when given, else the one the engine keeps (made on first start). */
async function resolveAdminToken(
  given: string | undefined,
  durable: boolean,
  keep: () => Promise<KeptSecret>,
): Promise<AdminToken> {
  if (given !== undefined) {
    if (!TOKEN_TEXT.test(given))
      throw new CardsError(
        'USAGE',
        '--admin-token must be 16 to 512 printable characters without spaces.',
      );
    return { token: given, created: false, from: '--admin-token' };
  }
  const { value, created, where, path } = await keep();
  if (!TOKEN_TEXT.test(value))
    throw new CardsError(
      'CONFIG_INVALID',
      `The admin token ${where} is not one (16-512 printable characters).`,
      { hint: 'Remove it to have a new one made, or pass --admin-token.' },
    );
  // Kept durably but in no file (a database every server shares): say which start made it.
  const shared = durable && path === undefined;
  const from = shared ? `${where}, made by ${created ? 'this' : 'an earlier'} start` : where;
  return { token: value, created, from };
}
