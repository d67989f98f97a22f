/**
 * Starts and stops a server (house habit 5, "thin serve"): take the store's lock and open it,
 * load or make the keys of the server's home, build the registry and the app, listen. `close`
 * stops accepting, finishes requests in flight, folds the journal into the store file and
 * releases the lock. Settings arrive resolved (src/cli/serve-settings.ts); nothing is printed.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { CardsError } from '../core/errors.js';
import type { WireProfile } from '../core/profile.js';
import { createApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import type { RequestLogger } from '../http/request-log.js';
import { createRegistry, type Registry } from '../registry/registry.js';
import type { PrivateKey } from '../crypto/keys.js';
import type { CardStore } from '../store/store.js';
import type { FileHome } from './file-home.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import {
  ADMIN_TOKEN_NAME,
  isLoopbackHost,
  resolveAdminToken,
  type AdminToken,
} from './admin-token.js';
import { openStore } from './open-store.js';
import { readPrivateKeyFile } from './key-files.js';
import { loadLogKey, loadServerKeys } from './server-keys.js';
import { logTilesOf, openCardLog, type LogSettings } from './log-setup.js';
import { readTrustedKeys } from './trusted-keys.js';
import type { CardLog } from '../registry/card-log.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The store: a PostgreSQL URL, or a JSON store file with the server's home beside it. */
  readonly store: string;
  /** Keep everything in memory: `store` is not used, no file is written. */
  readonly memory?: boolean;
  /** A private key file; default: the home's service key, made on first start. */
  readonly serviceKey?: string;
  /** `--jwt-key` values; none: trust the home's local app key, made on first start. */
  readonly jwtKeys: readonly string[];
  readonly profile: WireProfile;
  readonly appId?: string;
  readonly appKeyId?: string;
  readonly cors: boolean;
  readonly maxConnections: number;
  readonly requestTimeoutSeconds: number;
  /** Token clock skew allowed, in seconds (`--clock-skew`); 0: the deployed service's rules. */
  readonly clockSkewSeconds?: number;
  readonly compactBytes: number;
  /** PostgreSQL: connections at most, and the longest statement (ms). */
  readonly poolSize: number;
  readonly statementTimeoutMs: number;
  /** The admin API, the page, /metrics and /openapi.json (issue 15); --no-admin turns off. */
  readonly admin: boolean;
  readonly adminToken?: string;
  /** Reported by GET /health. */
  readonly version: string;
  /** The transparency log's settings; absent: no log (`--no-log`). */
  readonly log?: LogSettings;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: Registry;
  readonly store: CardStore;
  /** A JSON store's home (key files and lock beside it); none on PostgreSQL. */
  readonly home: FileHome | undefined;
  readonly serviceKey: { readonly key: PrivateKey };
  /** Where the service key came from (a file, the database), for the banner. */
  readonly serviceKeyFrom: string;
  /** Undefined with --no-admin. */
  readonly adminToken?: AdminToken;
  /** Listening on loopback only: the page and the admin API need no token. */
  readonly loopbackOpen: boolean;
  /** The app key tokens are checked against (undefined with --jwt-key). */
  readonly appKey: PrivateKey | undefined;
  /** Private key files this start made (a warning-worthy event in a git work tree). */
  readonly createdKeyFiles: readonly string[];
  /** Where token keys come from, for the start-up banner. */
  readonly tokenKeys: string;
  /** The transparency log, unless started without one. */
  readonly log: CardLog | undefined;
  /** Stops accepting, finishes requests in flight, folds the journal in, releases the lock. */
  close(): Promise<void>;
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

/** Runs once the registry exists, before the port opens (`cards serve --seed`). */
export type Prepare = (registry: Registry) => Promise<void>;

export async function startServing(
  options: ServerOptions,
  logger: RequestLogger,
  prepare?: Prepare,
): Promise<RunningServer> {
  // What the operator gave is read before anything is made: a failed start creates nothing.
  if (options.serviceKey) readPrivateKeyFile(options.serviceKey);
  if (options.jwtKeys.length > 0) await readTrustedKeys(options.jwtKeys);
  const opened = await openStore(options.store, {
    ...(options.memory && { memory: true }),
    compactBytes: options.compactBytes,
    poolSize: options.poolSize,
    statementTimeoutMs: options.statementTimeoutMs,
    onWarning: (m) => logger.warn(m),
  });
  const { store, home } = opened;
  let app: FastifyInstance | undefined;
  let log: CardLog | undefined;
  /** Files this start made, removed again if it fails. */
  const made: string[] = [];
  try {
    const loaded = await loadServerKeys(opened, options, (m) => logger.warn(m));
    made.push(...loaded.createdKeyFiles);
    const { tokenKeys, trusted: keys, serviceKeyFrom, appKey } = loaded;
    const createdKeyFiles = [...loaded.createdKeyFiles];
    const serviceKey = { key: loaded.serviceKey };
    if (options.log) {
      const logKey = await loadLogKey(opened, (m) => logger.warn(m));
      if (logKey.createdFile !== undefined) {
        made.push(logKey.createdFile);
        createdKeyFiles.push(logKey.createdFile);
      }
      const tiles = logTilesOf(opened);
      if (tiles.created !== undefined) made.push(tiles.created);
      log = await openCardLog({
        store,
        key: logKey.key,
        tiles: tiles.tiles,
        settings: options.log,
        onWarning: (m) => logger.warn(m),
      });
    }
    const cardLog = log;
    const registry = createRegistry({
      store,
      serviceKey: serviceKey.key,
      signer: options.profile.signer,
      ...(cardLog && { onInsert: () => cardLog.notify() }),
    });
    const auth = createAuthenticator({
      keys,
      scheme: options.profile.scheme,
      ...(options.appId !== undefined && { appId: options.appId }),
      ...(options.appKeyId !== undefined && { appKeyId: options.appKeyId }),
      ...(options.clockSkewSeconds !== undefined && { clockSkewSeconds: options.clockSkewSeconds }),
    });
    const timeoutMs = options.requestTimeoutSeconds * 1000;
    // A PostgreSQL store has no home on disk: without --admin-token, the one kept in the
    // database (made by the first server to start); in memory, one made for this run.
    const database = store instanceof PostgresStore ? store : undefined;
    const adminToken = options.admin
      ? await resolveAdminToken({
          ...(options.adminToken !== undefined && { given: options.adminToken }),
          path: home?.adminToken,
          ...(database && {
            kept: async (make: () => string) => {
              const { pem, created } = await database.keptKey(ADMIN_TOKEN_NAME, make);
              return { value: pem, created };
            },
          }),
        })
      : undefined;
    if (adminToken?.warning) logger.warn(adminToken.warning);
    if (adminToken?.created && adminToken.path !== undefined) made.push(adminToken.path);
    const loopbackOpen = isLoopbackHost(options.host);
    app = await createApp({
      registry,
      profile: options.profile,
      auth,
      logger,
      cors: options.cors,
      version: options.version,
      ...(adminToken && {
        admin: {
          token: adminToken.token,
          loopbackOpen,
          serviceKey: serviceKey.key.publicKey.toBase64(),
        },
      }),
      ...(cardLog && { log: cardLog }),
      limits: {
        maxConnections: options.maxConnections,
        requestTimeoutMs: timeoutMs,
        headersTimeoutMs: Math.min(20_000, timeoutMs),
      },
    });
    if (prepare) await prepare(registry);
    await listen(app, options);
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const server = app;
    return {
      url: `http://${host}:${address.port}`,
      app,
      registry,
      store,
      home,
      serviceKey,
      serviceKeyFrom,
      ...(adminToken && { adminToken }),
      loopbackOpen,
      appKey,
      createdKeyFiles,
      tokenKeys,
      log: cardLog,
      async close() {
        await server.close();
        logger.flush();
        try {
          await cardLog?.close();
        } catch (err) {
          logger.warn(`transparency log: ${(err as Error).message}`);
        }
        try {
          await registry.close();
        } finally {
          await opened.close();
        }
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await log?.close().catch(() => undefined);
    await opened.discard(made).catch(() => undefined);
    throw err;
  }
}

async function listen(app: FastifyInstance, options: ServerOptions): Promise<void> {
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const where = `${options.host}:${options.port}`;
    if (code === 'EADDRINUSE')
      throw usage(
        `Port ${options.port} is in use on ${options.host}; pick another with --port (0 picks a free one).`,
      );
    if (code === 'EACCES') throw usage(`Not allowed to listen on ${where}; try a port above 1023.`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw usage(`Cannot listen on ${where}: no such local address (--host).`);
    throw err;
  }
}
