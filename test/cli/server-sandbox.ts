/**
 * A server in a sandbox: the set-up of every CLI test that talks to a service. The server runs
 * in this process (helpers/in-process-server.ts: `cards serve`'s own flags and settings, a real
 * port 0, a temporary folder); the sandbox (harness.ts) runs `cards` commands that reach it
 * through CARDS_URL and CARDS_DB (its local app key and admin token sit beside the store).
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
import type { FileHome } from '../../src/server/file-home.js';
import type { StorePaths } from '../../src/store/json/paths.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { sandbox, type Sandbox } from './harness.js';

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
  const started = await startInProcess({
    ...(options.args && { args: options.args }),
    ...(options.dir !== undefined && { dir: options.dir }),
  });
  const server: SandboxServer = {
    ...started,
    token: (identity) => started.token(identity),
    async dispose() {
      await started.dispose();
      rmSync(started.dir, { recursive: true, force: true });
    },
  };
  const db = join(server.dir, 'cards.json');
  const env = options.env?.(server) ?? { CARDS_URL: server.url, CARDS_DB: db };
  return { server, box: sandbox(env) };
}
