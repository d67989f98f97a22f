// PostgreSQL rows of the benchmark, measured in the same run as the JSON store:
// create, get and one-identity search at N stored cards with one `cards serve --store
// postgres://…` and with two behind the same database, beside one JSON-store server on a copy
// of the same cards; export and import of the N cards (`cards export` / `cards import`,
// whole processes, timed from spawn to exit). The database is a throwaway PostgreSQL from the
// machine's binaries (test/helpers/postgres.ts), synchronous_commit on (the default).
//   node bench/postgres.mjs [--quick]        (npm run bench runs it after the JSON suite)
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCursor, measureCreate, measureReads } from './cards-server.mjs';
import { createPool, mintTokens, storeIdentities } from './lib/cards.mjs';
import { blast } from './lib/load.mjs';
import { CARDS_BIN, hermeticEnv, startCards } from './lib/servers.mjs';
import {
  appKeyOf,
  buildStore,
  copyStore,
  makeKeysDir,
  removeTempDirs,
  serviceKeyOf,
  tempDir,
} from './lib/stores.mjs';
import { sql, startOwnPostgres } from '../dist/test/helpers/postgres.js';

const log = (line) => process.stderr.write(`${line}\n`);

/** Runs `cards ARGS` with stdin from / stdout to files; resolves with the wall time in s. */
function timedCards(args, { stdin, stdout }) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CARDS_BIN, ...args], {
      env: hermeticEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    if (stdin) createReadStream(stdin).pipe(proc.stdin);
    else proc.stdin.end();
    if (stdout) proc.stdout.pipe(createWriteStream(stdout));
    else proc.stdout.resume();
    proc.on('exit', (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Error(`cards ${args[0]} exited ${code}: ${stderr}`)),
    );
  });
}

/** Two blasts at once, one per server, each with half the connections; rps summed. */
async function blastBoth(servers, pools, seconds) {
  const runs = await Promise.all(
    servers.map((server, i) => blast(server.url, pools[i], { seconds, connections: 8 })),
  );
  return {
    rps: runs.reduce((sum, run) => sum + run.rps, 0),
    p99: Math.max(...runs.map((run) => run.p99)),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
  };
}

export async function runPostgresBench({ storeSize, seconds }) {
  const started = performance.now();
  const pg = await startOwnPostgres();
  try {
    const settings = await sql(
      pg.adminUrl,
      `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit',
       'fsync', 'wal_sync_method', 'shared_buffers', 'max_connections', 'commit_delay')`,
    );
    const keysDir = await makeKeysDir();
    log(`postgres: a JSON store of ${storeSize} cards`);
    const big = await buildStore(keysDir, storeSize);
    const work = tempDir('cards-bench-pg-');
    const dump = join(work, 'dump.ndjson');
    const out = {
      storeSize,
      settings: Object.fromEntries(settings.map((s) => [s.name, s.setting])),
    };

    log('postgres: export the JSON store, import it into PostgreSQL, export it back');
    out.exportJsonS = await timedCards(['export', '--store', join(big, 'cards.json')], {
      stdout: dump,
    });
    out.dumpMB = statSync(dump).size / 1e6;
    await sql(pg.adminUrl, 'CREATE DATABASE bench');
    const url = pg.urlOf('bench');
    out.importPgS = await timedCards(['import', '--store', url], { stdin: dump });
    out.exportPgS = await timedCards(['export', '--store', url], {
      stdout: join(work, 'again.ndjson'),
    });
    out.identical = readFileSync(dump).equals(readFileSync(join(work, 'again.ndjson')));
    out.importJsonS = await timedCards(['import', '--store', join(work, 'back.json')], {
      stdin: dump,
    });

    // Every server signs with the bench's service key and trusts its app key (files given).
    const serviceKey = serviceKeyOf(keysDir);
    const appPublic = execFileSync(
      process.execPath,
      [CARDS_BIN, 'key', 'public', appKeyOf(keysDir)],
      {
        encoding: 'utf8',
        env: hermeticEnv(),
      },
    ).trim();
    const pgArgs = ['--quiet', '--store', url, '--service-key', serviceKey, '--jwt-key', appPublic];
    const json = await startCards(copyStore(big), ['--quiet']);
    const one = await startCards(tempDir(), pgArgs);
    const ids = JSON.parse(readFileSync(join(big, 'cards.json'), 'utf8')).cards.map((c) => c.id);
    const identities = storeIdentities(storeSize);
    const readToken = (await mintTokens(appKeyOf(keysDir), [identities[0]])).get(identities[0]);
    const creators = Array.from({ length: 64 }, (_, i) => `pg-bench-${i}@example.com`);
    const pool = await createPool(appKeyOf(keysDir), 120_000, creators);
    const warm = 1000;
    try {
      log('postgres: create, JSON store then PostgreSQL (same run)');
      out.createJson = await measureCreate(json, createCursor(pool), { seconds, warm });
      const cursor = createCursor(pool.slice(60_000));
      out.createPg = await measureCreate(one, cursor, { seconds, warm });
      log('postgres: get and search, one server');
      out.readsPg = await measureReads(one, {
        ids,
        identities,
        token: readToken,
        seconds,
        warmSeconds: 1,
      });
      log('postgres: two servers on the same database');
      const two = await startCards(tempDir(), pgArgs);
      try {
        const rest = cursor.rest();
        const half = Math.floor(rest.length / 2);
        out.createPgTwo = await blastBoth(
          [one, two],
          [rest.slice(0, half), rest.slice(half)],
          seconds,
        );
        const headers = { authorization: `Service ${readToken}` };
        const pick = (list) => list[Math.floor(Math.random() * list.length)];
        const gets = Array.from({ length: 10_000 }, () => ({
          method: 'GET',
          path: `/card/v5/${pick(ids)}`,
          headers,
        }));
        const searches = Array.from({ length: 10_000 }, () => ({
          method: 'POST',
          path: '/card/v5/actions/search',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ identity: pick(identities) }),
        }));
        out.getPgTwo = await blastBoth([one, two], [gets, gets], seconds);
        out.searchPgTwo = await blastBoth([one, two], [searches, searches], seconds);
      } finally {
        await two.stop();
      }
    } finally {
      await Promise.all([json.stop(), one.stop()]);
    }
    out.totalSeconds = (performance.now() - started) / 1000;
    return out;
  } finally {
    pg.destroy();
  }
}

export function formatPostgres(r) {
  const f = (x) => Math.round(x).toLocaleString('en-US');
  const ms = (x) => x.toFixed(1);
  const lines = [
    `PostgreSQL rows (${r.storeSize.toLocaleString('en-US')} stored cards; ${Object.entries(
      r.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')})`,
    '| measure | figure |',
    '| --- | --- |',
    `| create, JSON store, 16 connections | ${f(r.createJson.rps)} cards/s (p99 ${ms(r.createJson.p99)} ms) |`,
    `| create, PostgreSQL, one server | ${f(r.createPg.rps)} cards/s (p99 ${ms(r.createPg.p99)} ms; ${Math.round((100 * r.createPg.rps) / r.createJson.rps)}% of JSON) |`,
    `| create, PostgreSQL, two servers | ${f(r.createPgTwo.rps)} cards/s (p99 ${ms(r.createPgTwo.p99)} ms) |`,
    `| get, PostgreSQL, one server | ${f(r.readsPg.get.rps)} req/s (p99 ${ms(r.readsPg.get.p99)} ms) |`,
    `| get, PostgreSQL, two servers | ${f(r.getPgTwo.rps)} req/s (p99 ${ms(r.getPgTwo.p99)} ms) |`,
    `| search one identity, PostgreSQL, one server | ${f(r.readsPg.searchOne.rps)} req/s (p99 ${ms(r.readsPg.searchOne.p99)} ms) |`,
    `| search one identity, PostgreSQL, two servers | ${f(r.searchPgTwo.rps)} req/s (p99 ${ms(r.searchPgTwo.p99)} ms) |`,
    `| search 50 identities, PostgreSQL, one server | ${f(r.readsPg.searchFifty.rps)} req/s (p99 ${ms(r.readsPg.searchFifty.p99)} ms) |`,
    `| export JSON store → NDJSON (${r.dumpMB.toFixed(0)} MB) | ${r.exportJsonS.toFixed(1)} s |`,
    `| import NDJSON → PostgreSQL | ${r.importPgS.toFixed(1)} s |`,
    `| export PostgreSQL → NDJSON (byte-identical: ${r.identical ? 'yes' : 'NO'}) | ${r.exportPgS.toFixed(1)} s |`,
    `| import NDJSON → JSON store | ${r.importJsonS.toFixed(1)} s |`,
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => {
      removeTempDirs();
      process.exit(130);
    });
  try {
    const result = await runPostgresBench(
      values.quick ? { storeSize: 20_000, seconds: 2 } : { storeSize: 100_000, seconds: 3 },
    );
    console.log(formatPostgres(result));
    console.log(`\n(${Math.round(result.totalSeconds)} s)`);
  } finally {
    removeTempDirs();
  }
}
