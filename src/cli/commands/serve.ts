/**
 * `cards serve`: parse the flags, open the store, load or make the keys, listen, print where,
 * and on SIGINT/SIGTERM stop accepting, finish requests in flight, fold the journal into the
 * store file, release the lock and exit 0. Every rule lives in src/registry, every route in
 * src/http; this file only wires them.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { CardsError } from '../../core/errors.js';
import { isProfileName, PROFILES, type WireProfile } from '../../core/profile.js';
import type { PrivateKey } from '../../crypto/keys.js';
import { createApp } from '../../http/app.js';
import { createAuthenticator } from '../../http/auth.js';
import { createRequestLogger, type RequestLogger } from '../../http/request-log.js';
import { createRegistry, type Registry } from '../../registry/registry.js';
import { describeStore, openStore, resolveStoreTarget } from '../../server/open-store.js';
import { loadServerKeys } from '../../server/server-keys.js';
import { DEFAULT_DB } from '../../store/paths.js';
import type { CardStore } from '../../store/store.js';
import { VERSION } from '../version.js';

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly db: string;
  /** The store opened: a PostgreSQL URL or a JSON store file (open-store.ts). */
  readonly store: string;
  readonly serviceKey?: string;
  readonly jwtKeys: readonly string[];
  readonly profile: WireProfile;
  readonly appId?: string;
  readonly appKeyId?: string;
  readonly cors: boolean;
  readonly quiet: boolean;
  readonly logFormat: 'text' | 'json';
  readonly maxConnections: number;
  readonly requestTimeoutSeconds: number;
  readonly compactBytes: number;
  /** PostgreSQL: pool size and statement timeout (ms). */
  readonly poolSize: number;
  readonly statementTimeoutMs: number;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: Registry;
  readonly store: CardStore;
  readonly serviceKey: { readonly key: PrivateKey };
  /** Where the service key came from (a file, the database). */
  readonly serviceKeyFrom: string;
  /** Stops accepting, finishes requests in flight, folds the journal in, releases the lock. */
  close(): Promise<void>;
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

function integer(name: string, value: unknown, min: number, max: number): number {
  const text = String(value ?? '');
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usage(`${name} must be an integer from ${min} to ${max}, got "${text}".`);
  return n;
}

/** The commander options object → typed options (USAGE on a bad value). */
export function parseServeOptions(raw: Record<string, unknown>): ServeOptions {
  const compat = String(raw.compat ?? 'service');
  if (!isProfileName(compat))
    throw usage(`--compat must be "service" or "virgil", got "${compat}".`);
  const jwtKey = raw.jwtKey;
  const jwtKeys = Array.isArray(jwtKey) ? jwtKey.map(String) : jwtKey ? [String(jwtKey)] : [];
  const optional = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  const serviceKey = optional(raw.serviceKey);
  const appId = optional(raw.appId);
  const appKeyId = optional(raw.appKeyId);
  return {
    host: String(raw.host ?? '127.0.0.1'),
    port: integer('--port', raw.port ?? 8080, 0, 65535),
    db: String(raw.db ?? DEFAULT_DB),
    store: resolveStoreTarget({
      store: optional(raw.store),
      db: raw.dbGiven === true ? optional(raw.db) : undefined,
      databaseUrl: optional(raw.databaseUrl),
      fallback: String(raw.db ?? DEFAULT_DB),
    }),
    ...(serviceKey !== undefined && { serviceKey }),
    jwtKeys,
    profile: PROFILES[compat],
    ...(appId !== undefined && { appId }),
    ...(appKeyId !== undefined && { appKeyId }),
    cors: raw.cors !== false,
    quiet: raw.quiet === true,
    logFormat: raw.logFormat === 'json' ? 'json' : 'text',
    maxConnections: integer('--max-connections', raw.maxConnections ?? 1024, 1, 1_000_000),
    requestTimeoutSeconds: integer('--request-timeout', raw.requestTimeout ?? 30, 1, 3600),
    compactBytes: integer('--compact-bytes', raw.compactBytes ?? 16 * 1024 * 1024, 1, 2 ** 40),
    poolSize: integer('--pool-size', raw.poolSize ?? 10, 1, 1000),
    statementTimeoutMs: integer('--statement-timeout', raw.statementTimeout ?? 5000, 10, 3_600_000),
  };
}

/** Starts a server; prints nothing (see `serve`). */
export async function startServing(
  options: ServeOptions,
  logger: RequestLogger,
): Promise<{ running: RunningServer; tokenKeys: string }> {
  const store = await openStore(options.store, {
    compactBytes: options.compactBytes,
    poolSize: options.poolSize,
    statementTimeoutMs: options.statementTimeoutMs,
    onWarning: (m) => logger.warn(m),
  });
  let app: FastifyInstance | undefined;
  try {
    const loaded = await loadServerKeys(store, options, (m) => logger.warn(m));
    const { tokenKeys, trusted: keys } = loaded;
    const serviceKey = { key: loaded.serviceKey };
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
      version: VERSION,
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
    const running: RunningServer = {
      url: `http://${host}:${address.port}`,
      app,
      registry,
      store,
      serviceKey,
      serviceKeyFrom: loaded.serviceKeyFrom,
      async close() {
        await server.close();
        logger.flush();
        await registry.close();
      },
    };
    return { running, tokenKeys };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw err;
  }
}

async function listen(app: FastifyInstance, options: ServeOptions): Promise<void> {
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

const count = (n: number): string => `${n} card${n === 1 ? '' : 's'}`;

/** The `serve` command: start, print, wait for SIGINT/SIGTERM, stop cleanly. */
export async function serve(raw: Record<string, unknown>): Promise<void> {
  const options = parseServeOptions(raw);
  const logger = createRequestLogger({ format: options.logFormat, quiet: options.quiet });
  const { running, tokenKeys } = await startServing(options, logger);
  const { profile } = options;
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  out(`listening on ${running.url}`);
  out(`store: ${describeStore(running.store)} (${count(await running.registry.count())})`);
  out(
    `profile: ${profile.name} (Authorization: ${profile.scheme} <token>; signer "${profile.signer}"; header ${profile.supersededHeader}; codes as ${profile.codeType}s)`,
  );
  out(`service key: ${running.serviceKey.key.publicKey.toBase64()}`);
  if (running.store.engine === 'postgres') out(`keys: service key ${running.serviceKeyFrom}`);
  out(`tokens: ${tokenKeys}`);

  // A second signal more than a second after the first exits at once (the journal keeps every
  // acknowledged card); closer ones are echoes (npm and `timeout` forward signals to the group).
  let stoppedAt = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    if (Date.now() - stoppedAt < 1000) return;
    process.stderr.write(
      `${name} again: exiting now; the journal keeps every acknowledged card.\n`,
    );
    process.exit(130);
  };
  let first: (name: NodeJS.Signals) => void = () => undefined;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    first = resolve;
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
  stoppedAt = Date.now();
  process.off('SIGINT', first);
  process.off('SIGTERM', first);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stderr.write(`${signal}: finishing requests in flight and flushing the store…\n`);
  // onSignal stays: a late echo of the signal must not kill the process while it exits.
  await running.close();
  out(`stopped: ${count(running.store.stats().cards)} in ${describeStore(running.store)}`);
}
