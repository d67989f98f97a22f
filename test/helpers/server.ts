/**
 * Starts a real `cards serve` (node bin/cards.js serve --port 0 --host 127.0.0.1 --db <tmp>)
 * and waits for its start-up lines: for the tests about the process (signals, kill -9, the lock
 * between two processes, the banner, stderr) and the CLI's. A test about the service starts it
 * in its own process instead (in-process-server.ts).
 *
 *   const server = await startServer();                 // fresh temp dir, default flags
 *   const token = await server.token('alice');          // minted with the store's local app key
 *   await fetch(`${server.url}/card/v5`, { … });
 *   await server.stop();                                // SIGTERM, waits for exit 0
 *   await server.dispose();                             // stop if needed, remove the temp dir
 *
 * Restart on the same store: `startServer({ dir: server.dir })`. Crash: `server.kill()`.
 * The environment is hermetic: no CARDS_* variable of the machine leaks in; `env` adds some.
 * A start that must be refused: `runServeToExit(args)`, in this process unless `process: true`.
 *
 * PostgreSQL: `store: URL` serves from that database (`--store URL`); with
 * CARDS_TEST_ENGINE=postgres (the `*-postgres.test.ts` twins) every server gets a fresh database
 * of the test PostgreSQL, the same one again when restarted on the same `dir`. `token()` then
 * signs with the app key the server keeps in the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePrivateKey, type PrivateKey } from '../../src/crypto/keys.js';
import { APP_KEY_NAME } from '../../src/server/server-keys.js';
import { mintToken, type TokenFormat } from '../../src/crypto/tokens.js';
import { fileHome, type FileHome } from '../../src/server/file-home.js';
import { storePaths, type StorePaths } from '../../src/store/json/paths.js';
import { runCardsInProcess } from '../cli/harness.js';
import { awakeTimer } from './awake.js';
import { freshStoreUrl, sql } from './postgres.js';
import { checkFetchesTo } from './contract.js';

/**
 * How long a process's start may take before a test gives up on it: a start takes a second
 * alone and over 15 s on a host at a load of 12 on 2 cores; the limit only names a hang.
 */
export const START_LIMIT_MS = 60_000;

export const CARDS_BIN = new URL('../../../bin/cards.js', import.meta.url).pathname;

export interface StartServerOptions {
  /** Extra arguments after `serve` (may override --port, --host, --db). */
  readonly args?: readonly string[];
  /** Extra environment variables (CARDS_PORT, …); undefined removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Folder holding the store (`<dir>/cards.json`); default: a new temp folder. */
  readonly dir?: string;
  /** A PostgreSQL URL to serve from (`--store`); default: by CARDS_TEST_ENGINE (see above). */
  readonly store?: string;
  /** How long to wait for the start-up lines, ms. Default START_LIMIT_MS. */
  readonly timeoutMs?: number;
}

export interface ExitResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What `token()` may set besides the identity. */
export interface TestTokenOptions {
  ttlSeconds?: number;
  format?: TokenFormat;
  now?: number;
  /** Stock tokens: iss "virgil-<appId>" and kid. */
  appId?: string;
  kid?: string;
}

/** A token for `identity` signed by `key` (a server's app key), ten minutes long by default. */
export function testToken(
  key: PrivateKey,
  identity: string,
  options: TestTokenOptions = {},
): string {
  return mintToken({
    key,
    identity,
    now: options.now ?? Date.now(),
    ttlSeconds: options.ttlSeconds ?? 600,
    ...(options.format && { format: options.format }),
    ...(options.appId !== undefined && { appId: options.appId }),
    ...(options.kid !== undefined && { kid: options.kid }),
  });
}

export interface TestServer {
  /** Base URL from the "listening on" line, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** The service public key, base64 DER SPKI, as printed. */
  readonly serviceKey: string;
  readonly dir: string;
  /** The PostgreSQL URL served from, when the store is PostgreSQL. */
  readonly store: string | undefined;
  /** The store file and its companions: the store's journal, the server's keys and lock. */
  readonly paths: StorePaths & FileHome;
  readonly proc: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** A token for `identity` signed by the store's local app key (not with --jwt-key). */
  token(identity: string, options?: TestTokenOptions): Promise<string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<ExitResult>;
  /** Waits for the exit without sending anything (after a signal the test sent itself). */
  exited(): Promise<ExitResult>;
  /** SIGKILL: a crash, no clean-up. */
  kill(): Promise<ExitResult>;
  /** Stops the server if it runs and removes the temp folder when this helper made it. */
  dispose(): Promise<void>;
}

/**
 * What a test needs of a server, however it runs: a `cards serve` process (`startServer`) or a
 * server in the test's process (`startInProcess`, in-process-server.ts).
 */
export type Served = Pick<
  TestServer,
  'url' | 'serviceKey' | 'dir' | 'store' | 'paths' | 'token' | 'stdout' | 'stderr' | 'dispose'
>;

/** The machine's environment without CARDS_* variables, plus `extra`. */
export function hermeticEnv(
  extra: Readonly<Record<string, string | undefined>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('CARDS_') && key !== 'NODE_OPTIONS' && key !== 'DATABASE_URL')
      env[key] = value;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

const tempDirs = new Set<string>();

/** A new temporary folder, removed by `removeTempDirs()` (call it from an `after` hook). */
export function makeTempDir(prefix = 'cards-serve-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes every folder makeTempDir made in this process. */
export function removeTempDirs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** The database of each server folder, when CARDS_TEST_ENGINE=postgres. */
const storeOfDir = new Map<string, string>();

/**
 * The PostgreSQL URL a server in `dir` serves from: `options.store`, else by CARDS_TEST_ENGINE
 * (the same database again for the same folder), else none (the JSON store in `dir`).
 */
async function storeFor(
  dir: string,
  options: { readonly store?: string },
): Promise<string | undefined> {
  if (options.store !== undefined) return options.store;
  if (process.env.CARDS_TEST_ENGINE !== 'postgres') return undefined;
  let url = storeOfDir.get(dir);
  if (!url) storeOfDir.set(dir, (url = await freshStoreUrl()));
  return url;
}

/** Where a test server lives and the `serve` arguments it runs with. */
export interface ServeSetup {
  /** This helper made `dir` (a new temp folder): dispose removes it. */
  readonly ownDir: boolean;
  readonly dir: string;
  readonly store: string | undefined;
  /** The JSON store file (--db, CARDS_DB, or <dir>/cards.json). */
  readonly db: string;
  /** --port 0, --host 127.0.0.1, --db <db> unless given, --store, then the test's own. */
  readonly args: readonly string[];
}

/** The folder, store and `serve` arguments of a test server (both kinds share them). */
export async function serveSetup(options: {
  readonly dir?: string;
  readonly store?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
}): Promise<ServeSetup> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? makeTempDir();
  const store = await storeFor(dir, options);
  const args = [...(store !== undefined ? ['--store', store] : []), ...(options.args ?? [])];
  const env = options.env ?? {};
  const db = flagValue(args, '--db') ?? env.CARDS_DB ?? join(dir, 'cards.json');
  const given = (flag: string, variable: string): boolean =>
    flagValue(args, flag) !== undefined || env[variable] !== undefined;
  const defaults = [
    ...(given('--port', 'CARDS_PORT') ? [] : ['--port', '0']),
    ...(given('--host', 'CARDS_HOST') ? [] : ['--host', '127.0.0.1']),
    ...(given('--db', 'CARDS_DB') ? [] : ['--db', db]),
  ];
  return { ownDir, dir, store, db, args: [...defaults, ...args] };
}

export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const { ownDir, dir, store, db, args } = await serveSetup(options);
  const proc = spawn(process.execPath, [CARDS_BIN, 'serve', ...args], {
    cwd: dir,
    // serve reads the config profile like every command: not the developer's (~/.cards).
    env: hermeticEnv({ CARDS_HOME: join(dir, '.cards-home'), ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<ExitResult>((resolve) =>
    proc.once('exit', (code, signal) => {
      // Let the pipes drain before reporting.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    }),
  );

  const { url, serviceKey } = await new Promise<{ url: string; serviceKey: string }>(
    (resolve, reject) => {
      const timer = awakeTimer(options.timeoutMs ?? START_LIMIT_MS, () => {
        proc.kill('SIGKILL');
        reject(
          new Error(`cards serve did not start in time.\nstdout:\n${stdout}\nstderr:\n${stderr}`),
        );
      });
      const check = (): void => {
        const url = /^listening on (\S+)$/m.exec(stdout)?.[1];
        const key = /^service key: (\S+)$/m.exec(stdout)?.[1];
        // "tokens:" is the last start-up line; the lines may arrive in separate chunks.
        if (url && key && /^tokens: .*$/m.test(stdout)) {
          timer.clear();
          resolve({ url, serviceKey: key });
        }
      };
      proc.stdout?.on('data', check);
      void exited.then((result) => {
        timer.clear();
        reject(
          Object.assign(
            new Error(
              `cards serve exited (${result.code ?? result.signal}) before listening.\nstderr:\n${result.stderr}`,
            ),
            { result },
          ),
        );
      });
    },
  );

  let done: ExitResult | undefined;
  void exited.then((result) => (done = result));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<ExitResult> => {
    if (done) return done;
    proc.kill(signal);
    return exited;
  };
  const paths = { ...storePaths(db, dir), ...fileHome(db, dir) };
  // Every fetch to this server is checked against its OpenAPI document (contract.ts).
  checkFetchesTo(new URL(url).origin, /^profile: virgil/m.test(stdout) ? 'virgil' : 'service');
  return {
    url,
    serviceKey,
    dir,
    store,
    paths,
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    async token(identity, tokenOptions = {}) {
      const pem =
        store === undefined
          ? readFileSync(paths.appKey, 'utf8')
          : ((
              await sql<{ pem: string }>(store, 'SELECT pem FROM cards_keys WHERE name = $1', [
                APP_KEY_NAME,
              ])
            )[0]?.pem ?? '');
      return testToken(parsePrivateKey(pem), identity, tokenOptions);
    },
    stop,
    kill: () => stop('SIGKILL'),
    exited: () => exited,
    async dispose() {
      await stop();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunServeOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** How long it may run before it is given up on (killed, or abandoned in-process), ms. */
  readonly timeoutMs?: number;
  /** Spawn `node bin/cards.js serve` instead of running it in this process. */
  readonly process?: boolean;
}

/**
 * Runs `cards serve …` expecting it to exit by itself (a refusal). By default in this process,
 * through the executable's funnel (`runCardsInProcess`, test/cli/harness.ts): its status is the
 * one bin/cards.js exits with, its stdout and stderr what it would print. `process: true`
 * spawns `node bin/cards.js serve` (killed after `timeoutMs`) for what only a process shows: the
 * exit status the shell sees, the lock between two processes.
 */
export async function runServeToExit(
  args: readonly string[],
  options: RunServeOptions = {},
): Promise<ExitResult> {
  const cwd = options.cwd ?? tmpdir();
  const env = hermeticEnv({ CARDS_HOME: join(cwd, '.cards-no-home'), ...options.env });
  const limitMs = options.timeoutMs ?? START_LIMIT_MS;
  if (options.process !== true) {
    const defined = Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
    const result = await runCardsInProcess(['serve', ...args], {
      cwd,
      env: Object.fromEntries(defined),
      limitMs,
    });
    return { code: result.status, signal: null, stdout: result.stdout, stderr: result.stderr };
  }
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CARDS_BIN, 'serve', ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = awakeTimer(limitMs, () => proc.kill('SIGKILL'));
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      timer.clear();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === flag) return args[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}
