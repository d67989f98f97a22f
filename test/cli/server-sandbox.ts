/**
 * A server in a sandbox: the set-up of every CLI test that talks to a service. The server runs
 * in this process, started through the server's home (src/server) with the options its flags
 * give (`cards serve`'s own declaration and settings), on port 0 in a temporary folder; the
 * sandbox (harness.ts) runs `cards` commands that reach it through CARDS_URL and CARDS_DB
 * (its local app key and admin token sit beside the store).
 *
 *   let server: SandboxServer;
 *   let box: Sandbox;
 *   before(async () => ({ server, box } = await serverInSandbox()));
 *   after(() => Promise.all([server.dispose(), box.cleanup()]));
 *
 * With CARDS_TEST_ENGINE=postgres (the `*-postgres.test.ts` twins) the server serves from a
 * fresh database of the test PostgreSQL. What needs a real `cards serve` process (signals,
 * crashes, the banner a person reads) uses helpers/server.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ServeFlags } from '../../src/cli/commands/serve/settings.js';
import { serverOptions } from '../../src/cli/commands/serve/settings.js';
import { bannerLines, startInfo } from '../../src/cli/commands/serve/start-info.js';
import { makeContext } from '../../src/cli/context.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { silentLogger } from '../../src/http/request-log.js';
import { fileHome, type FileHome } from '../../src/server/file-home.js';
import { startServing } from '../../src/server/start.js';
import { storePaths, type StorePaths } from '../../src/store/json/paths.js';
import { checkFetchesTo } from '../helpers/contract.js';
import { freshStoreUrl } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/server.js';
import { commandOptions, sandbox, type Sandbox } from './harness.js';

export interface SandboxServer {
  readonly url: string;
  /** The folder served from: its cards.json and companions. */
  readonly dir: string;
  /** The service public key, base64 DER SPKI, as the banner prints it. */
  readonly serviceKey: string;
  /** The PostgreSQL URL served from, when the store is PostgreSQL. */
  readonly store: string | undefined;
  /** The store file and its companions (keys, admin token, journal, lock). */
  readonly paths: StorePaths & FileHome;
  /** The start-up lines `cards serve` would print. */
  stdout(): string;
  /** A token for `identity` signed by the server's app key (its file, or the database's). */
  token(identity: string): Promise<string>;
  /** Stops serving as `cards serve` does on SIGTERM (the store flushed); the folder stays. */
  stop(): Promise<void>;
  /** Stops, and removes the folder. */
  dispose(): Promise<void>;
}

export interface ServerInSandboxOptions {
  /** `cards serve` flags besides --port 0, --host and --db. */
  readonly args?: readonly string[];
  /** The sandbox's environment; default CARDS_URL and CARDS_DB of the server. */
  readonly env?: (server: SandboxServer) => Record<string, string>;
  /** Serve the cards.json in this folder (a restart on a server's folder, or on a copy). */
  readonly dir?: string;
}

export async function serverInSandbox(
  options: ServerInSandboxOptions = {},
): Promise<{ server: SandboxServer; box: Sandbox }> {
  const dir = options.dir ?? makeTempDir();
  const db = join(dir, 'cards.json');
  const store = process.env.CARDS_TEST_ENGINE === 'postgres' ? await freshStoreUrl() : undefined;
  const ctx = makeContext({ cwd: dir, env: { CARDS_HOME: join(dir, '.cards-home') } });
  const args = ['--port', '0', '--host', '127.0.0.1', '--db', db, ...(options.args ?? [])];
  if (store !== undefined) args.push('--store', store);
  const flags = await commandOptions<ServeFlags>(ctx, ['serve', ...args]);
  const started = serverOptions(ctx, flags, 'test');
  const running = await startServing(started, silentLogger);
  const info = startInfo(running, {
    cards: await running.registry.count(),
    profile: started.profile,
    version: 'test',
  });
  const banner = `${bannerLines(info, started.profile).join('\n')}\n`;
  checkFetchesTo(new URL(running.url).origin, started.profile.name);
  let closed: Promise<void> | undefined;
  const stop = (): Promise<void> => (closed ??= running.close());
  const server: SandboxServer = {
    url: running.url,
    dir,
    serviceKey: info.serviceKey,
    store,
    paths: { ...storePaths(db, dir), ...fileHome(db, dir) },
    stdout: () => banner,
    async token(identity) {
      if (!running.appKey) throw new Error('this server trusts --jwt-key keys: it has no app key');
      return mintToken({ key: running.appKey, identity, now: Date.now(), ttlSeconds: 600 });
    },
    stop,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const env = options.env?.(server) ?? { CARDS_URL: server.url, CARDS_DB: db };
  return { server, box: sandbox(env) };
}
