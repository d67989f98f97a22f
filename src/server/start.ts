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
import type { TrustedKey } from '../crypto/tokens.js';
import { createApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import type { RequestLogger } from '../http/request-log.js';
import { createRegistry, type Registry } from '../registry/registry.js';
import type { JsonStore } from '../store/json-store.js';
import { openFileStore, type FileHome } from './file-home.js';
import { loadOrCreatePrivateKey, readPrivateKeyFile, type KeyFile } from './key-files.js';
import { readTrustedKeys } from './trusted-keys.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The JSON store file; the server's home is beside it (file-home.ts). */
  readonly db: string;
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
  readonly compactBytes: number;
  /** Reported by GET /health. */
  readonly version: string;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: Registry;
  readonly store: JsonStore;
  readonly home: FileHome;
  readonly serviceKey: KeyFile;
  /** Where token keys come from, for the start-up banner. */
  readonly tokenKeys: string;
  /** Stops accepting, finishes requests in flight, folds the journal in, releases the lock. */
  close(): Promise<void>;
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

export async function startServing(
  options: ServerOptions,
  logger: RequestLogger,
): Promise<RunningServer> {
  // What the operator gave is read before anything is made: a failed start creates nothing.
  const givenServiceKey = options.serviceKey ? readPrivateKeyFile(options.serviceKey) : undefined;
  const givenKeys = options.jwtKeys.length > 0 ? await readTrustedKeys(options.jwtKeys) : undefined;
  const opened = await openFileStore({
    path: options.db,
    compactBytes: options.compactBytes,
    onWarning: (m) => logger.warn(m),
  });
  const { store, home } = opened;
  const made: string[] = [];
  const loadOrCreate = async (path: string): Promise<KeyFile> => {
    const key = await loadOrCreatePrivateKey(path);
    if (key.created) made.push(path);
    return key;
  };
  let app: FastifyInstance | undefined;
  try {
    const serviceKey = givenServiceKey ?? (await loadOrCreate(home.serviceKey));
    if (serviceKey.warning) logger.warn(serviceKey.warning);
    let keys: TrustedKey[];
    let tokenKeys: string;
    if (givenKeys) {
      keys = givenKeys;
      tokenKeys = `${keys.length} trusted key${keys.length === 1 ? '' : 's'} from --jwt-key`;
    } else {
      const appKey = await loadOrCreate(home.appKey);
      if (appKey.warning) logger.warn(appKey.warning);
      keys = [{ key: appKey.key.publicKey }];
      tokenKeys = `signed by the local app key ${appKey.path} (mint one with \`cards jwt\`)`;
    }
    const registry = createRegistry({
      store,
      serviceKey: serviceKey.key,
      signer: options.profile.signer,
    });
    const auth = createAuthenticator({
      keys,
      scheme: options.profile.scheme,
      ...(options.appId !== undefined && { appId: options.appId }),
      ...(options.appKeyId !== undefined && { appKeyId: options.appKeyId }),
    });
    const timeoutMs = options.requestTimeoutSeconds * 1000;
    app = await createApp({
      registry,
      profile: options.profile,
      auth,
      logger,
      cors: options.cors,
      version: options.version,
      limits: {
        maxConnections: options.maxConnections,
        requestTimeoutMs: timeoutMs,
        headersTimeoutMs: Math.min(20_000, timeoutMs),
      },
    });
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
      tokenKeys,
      async close() {
        await server.close();
        logger.flush();
        try {
          await registry.close();
        } finally {
          await opened.close();
        }
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    // Keys made for a store this start made go with it: nothing was signed with them.
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
