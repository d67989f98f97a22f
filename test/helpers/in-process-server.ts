/**
 * A server in the test's own process: the options `cards serve ARGS…` would run with (its flag
 * declaration and settings, src/cli/commands/serve), started through the server's home
 * (src/server/start.ts) on a real port (0, loopback), in a temporary folder. For every test whose
 * subject is the service rather than the process: no process start, no key generation in a
 * child, Pythia's threads only when a request needs them. What is about the process (signals,
 * kill -9, the lock between two processes, the printed banner, stderr) uses `startServer`.
 *
 *   const server = await startInProcess({ args: ['--no-log'] });
 *   await fetch(`${server.url}/card/v5`, { headers: { authorization: `Bearer ${await server.token('alice')}` } });
 *   await server.stop();                                   // close: the journal folded in, lock released
 *   const again = await startInProcess({ dir: server.dir });
 *   await again.dispose();                                 // stop if needed, remove the temp folder
 *
 * `stdout()` holds the banner `cards serve` would print, `stderr()` what its request logger
 * wrote (warnings; request lines unless --quiet). The store follows `startServer`'s rules:
 * `store: URL`, or a fresh PostgreSQL database per folder with CARDS_TEST_ENGINE=postgres.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ServeFlags } from '../../src/cli/commands/serve/settings.js';
import { serverOptions } from '../../src/cli/commands/serve/settings.js';
import { bannerLines, startInfo } from '../../src/cli/commands/serve/start-info.js';
import type { CommandContext } from '../../src/cli/context.js';
import { makeContext } from './context.js';
import { buildProgram } from '../../src/cli/program.js';
import { resolveOptions } from '../../src/cli/value-sources.js';
import { createRequestLogger, startServing, type RunningServer } from '../../src/server/start.js';
import { fileHome, type FileHome } from '../../src/server/file-home.js';
import { MEMORY_TARGET } from '../../src/server/open-engine.js';
import { storePaths, type StorePaths } from '../../src/store/json/paths.js';
import { checkFetchesTo } from './contract.js';
import { freshStoreUrl } from './postgres.js';
import { serveSetup, testToken, type TestTokenOptions } from './server.js';

export interface InProcessOptions {
  /** `cards serve` flags besides the defaults --port 0, --host 127.0.0.1, --db <dir>/cards.json. */
  readonly args?: readonly string[];
  /** The environment the flags are layered with (CARDS_* variables); nothing of the machine's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Folder holding the store; default: a new temp folder, removed by `dispose()`. */
  readonly dir?: string;
  /** A PostgreSQL URL to serve from (`--store`); default: by CARDS_TEST_ENGINE. */
  readonly store?: string;
}

export interface InProcessServer {
  readonly url: string;
  /** The service public key, base64 DER SPKI, as the banner prints it. */
  readonly serviceKey: string;
  readonly dir: string;
  /** The PostgreSQL URL served from, when the store is PostgreSQL. */
  readonly store: string | undefined;
  /** The store file and its companions: the store's journal, the server's keys and lock. */
  readonly paths: StorePaths & FileHome;
  /** The running server: its app (for `inject`), registry, engine, log. */
  readonly running: RunningServer;
  /** The banner `cards serve` would print. */
  stdout(): string;
  /** What the request logger wrote (warnings; request lines unless --quiet). */
  stderr(): string;
  /** A token for `identity` signed by the server's app key (not with --jwt-key). */
  token(identity: string, options?: TestTokenOptions): Promise<string>;
  /** Closes the server as `cards serve` does on SIGTERM; rejects when closing fails. */
  stop(): Promise<void>;
  /** Stops the server if it runs and removes the temp folder when this helper made it. */
  dispose(): Promise<void>;
}

/** The options `cards ARGS…` would run with in `ctx`, layered, each with its source. */
async function flagsOf(ctx: CommandContext, args: readonly string[]): Promise<ServeFlags> {
  let flags: ServeFlags | undefined;
  const program = buildProgram(ctx, async (_declaration, command) => {
    flags = resolveOptions(command, ctx) as unknown as ServeFlags;
  });
  await program.parseAsync(['serve', ...args], { from: 'user' });
  if (!flags) throw new Error(`cards serve ${args.join(' ')}: no options parsed`);
  return flags;
}

export async function startInProcess(options: InProcessOptions = {}): Promise<InProcessServer> {
  const { ownDir, dir, store, db, args } = await serveSetup(options);
  const env = options.env ?? {};
  const ctx = makeContext({ cwd: dir, env: { CARDS_HOME: join(dir, '.cards-home'), ...env } });
  const flags = await flagsOf(ctx, args);
  const settings = serverOptions(ctx, flags, 'test');
  let stderr = '';
  const logger = createRequestLogger({
    format: flags.logFormat,
    quiet: flags.quiet === true,
    write: (text) => void (stderr += text),
  });
  const running = await startServing(settings, logger);
  const info = startInfo(running, {
    cards: await running.registry.count(),
    profile: settings.profile,
    version: 'test',
  });
  const banner = `${bannerLines(info, settings.profile).join('\n')}\n`;
  // Every fetch to this server is checked against its OpenAPI document (contract.ts).
  checkFetchesTo(new URL(running.url).origin, settings.profile.name);
  let closed: Promise<void> | undefined;
  const stop = (): Promise<void> => (closed ??= running.close());
  return {
    url: running.url,
    serviceKey: info.serviceKey,
    dir,
    store,
    paths: { ...storePaths(db, dir), ...fileHome(db, dir) },
    running,
    stdout: () => banner,
    stderr: () => stderr,
    async token(identity, tokenOptions) {
      if (!running.appKey) throw new Error('this server trusts --jwt-key keys: it has no app key');
      return testToken(running.appKey, identity, tokenOptions);
    },
    stop,
    async dispose() {
      await stop();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every engine a test can serve from, by name: the `store` option of `startInProcess` for
 * memory and a fresh PostgreSQL database, undefined for a JSON file in the server's folder.
 */
export const EVERY_ENGINE: readonly (readonly [string, () => Promise<string | undefined>])[] = [
  ['memory', async () => MEMORY_TARGET],
  ['JSON file', async () => undefined],
  ['PostgreSQL', () => freshStoreUrl()],
];

/** The server's whole dump (GET /_cards/export): its lines, without the empty last one. */
export async function exportLines(server: InProcessServer): Promise<string[]> {
  const response = await fetch(`${server.url}/_cards/export`);
  if (response.status !== 200) throw new Error(`GET /_cards/export: ${response.status}`);
  return (await response.text()).split('\n').filter((line) => line !== '');
}
