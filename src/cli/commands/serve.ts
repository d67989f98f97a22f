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
import type { TrustedKey } from '../../crypto/tokens.js';
import { createApp } from '../../http/app.js';
import { createAuthenticator } from '../../http/auth.js';
import { createRequestLogger, type RequestLogger } from '../../http/request-log.js';
import { createRegistry, type Registry } from '../../registry/registry.js';
import { openJsonStore, type JsonStore } from '../../store/json-store.js';
import {
  loadOrCreatePrivateKey,
  readPrivateKeyFile,
  readTrustedKeys,
  type KeyFile,
} from '../../store/key-files.js';
import { DEFAULT_DB } from '../../store/paths.js';
import {
  adminTokenPath,
  isLoopbackHost,
  resolveAdminToken,
  type AdminToken,
} from '../../server/admin-token.js';
import { VERSION } from '../version.js';

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly db: string;
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
  /** The admin API, the page, /metrics and /openapi.json (issue 15); --no-admin turns off. */
  readonly admin: boolean;
  readonly adminToken?: string;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: Registry;
  readonly store: JsonStore;
  readonly serviceKey: KeyFile;
  /** Undefined with --no-admin. */
  readonly adminToken?: AdminToken;
  readonly loopbackOpen: boolean;
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
  const adminToken = optional(raw.adminToken);
  return {
    host: String(raw.host ?? '127.0.0.1'),
    port: integer('--port', raw.port ?? 8080, 0, 65535),
    db: String(raw.db ?? DEFAULT_DB),
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
    admin: raw.admin !== false,
    ...(adminToken !== undefined && { adminToken }),
  };
}

/** Starts a server; prints nothing (see `serve`). */
export async function startServing(
  options: ServeOptions,
  logger: RequestLogger,
): Promise<{ running: RunningServer; tokenKeys: string }> {
  const store = await openJsonStore({
    path: options.db,
    compactBytes: options.compactBytes,
    onWarning: (m) => logger.warn(m),
  });
  let app: FastifyInstance | undefined;
  try {
    const serviceKey = options.serviceKey
      ? await readPrivateKeyFile(options.serviceKey)
      : await loadOrCreatePrivateKey(store.paths.serviceKey);
    if (serviceKey.warning) logger.warn(serviceKey.warning);
    let keys: TrustedKey[];
    let tokenKeys: string;
    if (options.jwtKeys.length > 0) {
      keys = await readTrustedKeys(options.jwtKeys);
      tokenKeys = `${keys.length} trusted key${keys.length === 1 ? '' : 's'} from --jwt-key`;
    } else {
      const appKey = await loadOrCreatePrivateKey(store.paths.appKey);
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
    const adminToken = options.admin
      ? await resolveAdminToken({
          ...(options.adminToken !== undefined && { given: options.adminToken }),
          path: adminTokenPath(store.paths.store),
        })
      : undefined;
    if (adminToken?.warning) logger.warn(adminToken.warning);
    const loopbackOpen = isLoopbackHost(options.host);
    app = await createApp({
      registry,
      profile: options.profile,
      auth,
      logger,
      cors: options.cors,
      version: VERSION,
      ...(adminToken && {
        admin: {
          token: adminToken.token,
          loopbackOpen,
          serviceKey: serviceKey.key.publicKey.toBase64(),
        },
      }),
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
      ...(adminToken && { adminToken }),
      loopbackOpen,
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
  out(`store: ${running.store.location} (${count(await running.registry.count())})`);
  out(
    `profile: ${profile.name} (Authorization: ${profile.scheme} <token>; signer "${profile.signer}"; header ${profile.supersededHeader}; codes as ${profile.codeType}s)`,
  );
  out(`service key: ${running.serviceKey.key.publicKey.toBase64()}`);
  if (running.adminToken) {
    out(`admin token: ${running.adminToken.token}`);
    out(
      running.loopbackOpen
        ? `page: ${running.url}/ (listening on loopback only: the page and /_cards/ need no token)`
        : `page: ${running.url}/ (not loopback only: the page and /_cards/ need the admin token)`,
    );
  }
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
  out(`stopped: ${count(await running.store.count())} in ${running.store.location}`);
}
