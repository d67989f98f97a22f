/**
 * Starts and stops a server, all `cards serve` does besides printing: open the engine, take the
 * secrets it keeps (or the operator's), build the log, the registry and the app, listen.
 * `close` stops accepting, finishes requests in flight and closes the engine (a JSON store
 * folds its journal in and releases its lock). Settings arrive resolved
 * (src/cli/commands/serve/settings.ts); nothing is printed.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { CardsError } from '../core/errors.js';
import type { FaultRule } from '../core/fault-rule.js';
import type { WireProfile } from '../core/profile.js';
import type { PrivateKey } from '../crypto/keys.js';
import { createApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import { connectionLimits } from '../http/server-limits.js';
import type { RequestLogger } from '../http/request-log.js';
import type { CardLog } from '../registry/card-log.js';
import { createRegistry, type Registry } from '../registry/registry.js';
import type { CardStore } from '../store/store.js';
import { readPrivateKeyFile } from '../io/key-files.js';
import { openFileLimit } from '../io/open-files.js';
import { KeyknoxV1 } from '../registry/keyknox-v1.js';
import { KeyknoxV2 } from '../registry/keyknox-v2.js';
import { openCardLog, type LogSettings } from './log-setup.js';
import type { OnDemand } from './on-demand.js';
import { startPythia, type PythiaInfo, type PythiaSettings } from './pythia-setup.js';
import { MEMORY_TARGET, openEngine, type Engine } from './open-engine.js';
import { isLoopbackHost } from './defaults.js';
import { loadServerSecrets, type AdminToken } from './server-keys.js';
import { announceOwner } from './owner-file.js';
import { readTrustedKeys } from './trusted-keys.js';
import { listenOn } from './listen.js';

/** The request log a server writes on stderr (text or JSON lines), made by `cards serve`. */
export { createRequestLogger } from '../http/request-log.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The store target: a PostgreSQL URL, or a JSON store file with its files beside it. */
  readonly store: string;
  /** Keep everything in memory (the memory engine): `store` is not used, no file is written. */
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
  /** The admin API, the page, /metrics and /openapi.json; --no-admin turns off. */
  readonly admin: boolean;
  readonly adminToken?: string;
  /** Reported by GET /health. */
  readonly version: string;
  /** The transparency log's settings; absent: no log (`--no-log`). */
  readonly log?: LogSettings;
  /** Requests the admin API's journal keeps (`--journal-size`); default 1000. */
  readonly journalSize?: number;
  /** Any well-formed token accepted for its `sub`, unverified (loopback hosts only). */
  readonly acceptAnyToken?: boolean;
  /**
   * The admin token is asked for on a loopback host too (`--require-admin-token`): a reverse
   * proxy on the same machine makes every client it serves a loopback one.
   */
  readonly requireAdminToken?: boolean;
  /** A dump to start from (`--import FILE`): its keys and cards; the store must be new. */
  readonly importDump?: string;
  /** Where to write a dump when the server stops (`--export-on-exit FILE`). */
  readonly exportOnExit?: string;
  /** Fault rules in force from the start (`--faults FILE`). */
  readonly faults?: readonly FaultRule[];
  /** Pythia's key versions, throttle and threads (default: 1 version, throttled). */
  readonly pythia?: PythiaSettings;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: Registry;
  readonly engine: Engine;
  /** The engine's cards. */
  readonly store: CardStore;
  readonly serviceKey: { readonly key: PrivateKey };
  /** Where the service key came from (a file, the database), for the banner. */
  readonly serviceKeyFrom: string;
  /** Undefined with --no-admin. */
  readonly adminToken?: AdminToken;
  /** Listening on loopback only: the page and the admin API need no token. */
  readonly loopbackOpen: boolean;
  /** The app key tokens are checked against (undefined with --jwt-key), and its file if any. */
  readonly appKey: PrivateKey | undefined;
  readonly appKeyFile: string | undefined;
  /** Private key files this start made (a warning-worthy event in a git work tree). */
  readonly createdKeyFiles: readonly string[];
  /** Where token keys come from, for the start-up banner. */
  readonly tokenKeys: string;
  /** Tokens are not verified (`--accept-any-token`). */
  readonly acceptAnyToken: boolean;
  /** The transparency log, unless started without one. */
  readonly log: CardLog | undefined;
  /**
   * Pythia's proof keys, update tokens, threads and throttle (banner, --json), once derived; the
   * first await starts Pythia's threads (pythia-setup.ts), as does any other need of Pythia.
   */
  readonly pythia: OnDemand<PythiaInfo>;
  /** Stops accepting, finishes requests in flight, folds the journal in, releases the lock. */
  close(): Promise<void>;
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

/**
 * The dump's reader and writer (dump.ts), loaded by the starts that import or export one
 * (`--import`, `--export-on-exit`) and by no other.
 */
const dumps = () => import('./dump.js');

/** Runs once the registry exists, before the port opens (`cards serve --seed`). */
export type Prepare = (registry: Registry) => Promise<void>;

export async function startServing(
  options: ServerOptions,
  logger: RequestLogger,
  prepare?: Prepare,
): Promise<RunningServer> {
  if (options.acceptAnyToken && !isLoopbackHost(options.host))
    throw usage(
      `--accept-any-token accepts tokens nobody signed: only on a loopback --host (127.0.0.1, ::1, localhost), not ${options.host}.`,
    );
  // What the operator gave is read before anything is made: a failed start creates nothing.
  if (options.serviceKey) readPrivateKeyFile(options.serviceKey);
  if (options.jwtKeys.length > 0) await readTrustedKeys(options.jwtKeys);
  const warn = (message: string): void => logger.warn(message);
  const pythiaStart = startPythia(options.pythia ?? { versions: 1 }, (err) =>
    warn(`Pythia worker: ${(err as Error).message}`),
  );
  const engine = await openEngine(options.memory ? MEMORY_TARGET : options.store, {
    compactBytes: options.compactBytes,
    poolSize: options.poolSize,
    statementTimeoutMs: options.statementTimeoutMs,
    onWarning: warn,
  }).catch(async (err: unknown) => {
    await pythiaStart.abandon();
    throw err;
  });
  let app: FastifyInstance | undefined;
  let log: CardLog | undefined;
  let pythia: Awaited<ReturnType<typeof pythiaStart.finish>> | undefined;
  try {
    const dumped =
      options.importDump && (await (await dumps()).adoptDumpSecrets(options.importDump, engine));
    const secrets = await loadServerSecrets(
      engine,
      { ...options, log: options.log !== undefined },
      warn,
    );
    const { serviceKey, adminToken, logKey } = secrets;
    if (options.log && logKey)
      log = await openCardLog({ engine, key: logKey, settings: options.log, onWarning: warn });
    const cardLog = log;
    const registry = createRegistry({
      store: engine.cards,
      serviceKey,
      signer: options.profile.signer,
      ...(cardLog && { onInsert: () => cardLog.notify() }),
    });
    const auth = createAuthenticator({
      keys: secrets.trusted,
      scheme: options.profile.scheme,
      ...(options.appId !== undefined && { appId: options.appId }),
      ...(options.appKeyId !== undefined && { appKeyId: options.appKeyId }),
      ...(options.clockSkewSeconds !== undefined && { clockSkewSeconds: options.clockSkewSeconds }),
      ...(options.acceptAnyToken && { acceptAnyToken: true }),
    });
    pythia = await pythiaStart.finish(engine);
    const serverPythia = pythia;
    const timeoutMs = options.requestTimeoutSeconds * 1000;
    const openFiles = openFileLimit();
    const connections = connectionLimits(options.maxConnections, openFiles);
    if (connections.maxConnections < options.maxConnections)
      warn(
        `the open-file limit (${openFiles}) leaves room for ${connections.heldConnections} connections: ${connections.maxConnections} are served at once, not ${options.maxConnections} (raise it with ulimit -n, or lower --max-connections)`,
      );
    const loopbackOpen = isLoopbackHost(options.host) && options.requireAdminToken !== true;
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
          serviceKey: serviceKey.publicKey.toBase64(),
          ...(options.journalSize !== undefined && { journalSize: options.journalSize }),
        },
      }),
      ...(cardLog && { log: cardLog }),
      ...(options.faults && { faults: options.faults }),
      keyknox: engine.keyknox,
      e3kit: {
        keyknoxV1: new KeyknoxV1(engine.keyknox),
        keyknoxV2: new KeyknoxV2(engine.keyknox),
        pythia: serverPythia.ready.map((ready) => ready.pythia),
      },
      // The headers' time is the HTTP layer's default, at most the whole request's.
      limits: { ...connections, requestTimeoutMs: timeoutMs },
    });
    if (dumped) await (await dumps()).importDumpCards(dumped, engine);
    if (prepare) await prepare(registry);
    await listen(app, options);
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}`;
    const server = app;
    const disown = options.memory ? () => undefined : await announceOwner(options.store, url);
    return {
      url,
      app,
      registry,
      engine,
      store: engine.cards,
      serviceKey: { key: serviceKey },
      serviceKeyFrom: secrets.serviceKeyFrom,
      ...(adminToken && { adminToken }),
      loopbackOpen,
      appKey: secrets.appKey,
      appKeyFile: secrets.appKeyFile,
      createdKeyFiles: secrets.createdKeyFiles,
      tokenKeys: options.acceptAnyToken
        ? `ANY well-formed token is accepted for its sub, its signature NOT checked (--accept-any-token; ${secrets.tokenKeys} not required)`
        : secrets.tokenKeys,
      acceptAnyToken: options.acceptAnyToken === true,
      log: cardLog,
      pythia: serverPythia.ready.map((ready) => ready.info),
      async close() {
        disown();
        await server.close();
        await serverPythia.close().catch((err: Error) => logger.warn(`Pythia: ${err.message}`));
        logger.flush();
        // A dump that cannot be written (a full disk, a folder gone or read-only) is reported
        // once the store is closed: the log, the registry and the engine close whatever it met,
        // so the journal is folded in and the lock released as on every stop.
        let notExported: { readonly error: unknown } | undefined;
        if (options.exportOnExit) {
          const keys = { 'service-key': serviceKey, 'app-key': secrets.appKey, 'log-key': logKey };
          try {
            const { exportDump } = await dumps();
            const cards = await exportDump(options.exportOnExit, keys, engine);
            logger.warn(
              `exported ${cards} cards and the keys to ${options.exportOnExit} (mode 0600: it holds private keys)`,
            );
          } catch (error) {
            notExported = { error };
          }
        }
        try {
          await cardLog?.close();
        } catch (err) {
          logger.warn(`transparency log: ${(err as Error).message}`);
        }
        try {
          await registry.close();
        } finally {
          await engine.close();
        }
        if (notExported) throw notExported.error;
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await (pythia ? pythia.close() : pythiaStart.abandon()).catch(() => undefined);
    await log?.close().catch(() => undefined);
    await engine.discard().catch(() => undefined);
    throw err;
  }
}

async function listen(app: FastifyInstance, options: ServerOptions): Promise<void> {
  await listenOn(options.host, options.port, () =>
    app.listen({ host: options.host, port: options.port }),
  );
}
