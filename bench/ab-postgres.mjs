// `node bench/ab-postgres.mjs --base /other/checkout/bin/cards.js [--cards N] [--seconds S]
// [--rounds R] [--only create|reads]`: the PostgreSQL create, get and one-identity search rows
// of two builds in the same run, beside this build's JSON store as the reference the
// create target is a share of. Each build serves its own database holding the same N cards
// (imported with `cards import`); the rounds alternate the order of the servers, and the
// figures are medians with the load average before and after. synchronous_commit stays on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCursor, measureCreate, measureReads } from './cards-server.mjs';
import { createPool, mintTokens, storeIdentities } from './lib/cards.mjs';
import { median } from './lib/load.mjs';
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

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    cards: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
if (!values.base) {
  process.stderr.write('--base /path/to/other/bin/cards.js is required\n');
  process.exit(2);
}
const storeSize = Number(values.cards);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const log = (line) => process.stderr.write(`${line}\n`);
process.once('exit', removeTempDirs);

const cards = (bin, args, options = {}) =>
  execFileSync(process.execPath, [bin, ...args], {
    env: hermeticEnv(),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    ...options,
  });

const pg = await startOwnPostgres();
try {
  const keysDir = await makeKeysDir();
  log(`a JSON store of ${storeSize} cards`);
  const big = await buildStore(keysDir, storeSize);
  const dump = cards(CARDS_BIN, ['export', '--store', join(big, 'cards.json')]);
  const builds = { base: values.base, this: CARDS_BIN };
  const urls = {};
  for (const name of Object.keys(builds)) {
    await sql(pg.adminUrl, `CREATE DATABASE ${name}_db`);
    urls[name] = pg.urlOf(`${name}_db`);
    cards(CARDS_BIN, ['import', '--store', urls[name]], { input: dump });
  }
  const appPublic = cards(CARDS_BIN, ['key', 'public', appKeyOf(keysDir)]).trim();
  const servers = { json: await startCards(copyStore(big), ['--quiet']) };
  for (const [name, bin] of Object.entries(builds))
    servers[name] = await startCards(
      tempDir(),
      [
        '--quiet',
        '--store',
        urls[name],
        '--service-key',
        serviceKeyOf(keysDir),
        '--jwt-key',
        appPublic,
      ],
      [],
      bin,
    );
  const ids = JSON.parse(readFileSync(join(big, 'cards.json'), 'utf8')).cards.map((c) => c.id);
  const identities = storeIdentities(storeSize);
  const token = (await mintTokens(appKeyOf(keysDir), [identities[0]])).get(identities[0]);
  const creators = Array.from({ length: 64 }, (_, i) => `ab-${i}@example.com`);
  const loadBefore = loadavg();
  const figures = { json: [], base: [], this: [] };
  const reads = { base: [], this: [] };
  try {
    if (values.only !== 'reads') {
      const perRun = 6000 * seconds + 1000;
      log(`create requests: ${3 * rounds * perRun}`);
      const pool = await createPool(appKeyOf(keysDir), 3 * rounds * perRun, creators);
      const cursor = createCursor(pool);
      for (let round = 0; round < rounds; round++) {
        const order = ['json', 'base', 'this'];
        if (round % 2) order.reverse();
        for (const name of order) {
          const run = await measureCreate(servers[name], cursor, { seconds, warm: 1000 });
          figures[name].push(run);
          log(`round ${round + 1} create ${name}: ${Math.round(run.rps)}/s p99 ${run.p99} ms`);
        }
      }
    }
    if (values.only !== 'create')
      for (let round = 0; round < rounds; round++)
        for (const name of round % 2 ? ['this', 'base'] : ['base', 'this']) {
          const r = await measureReads(servers[name], {
            ids,
            identities,
            token,
            seconds,
            warmSeconds: 1,
          });
          reads[name].push(r);
          log(
            `round ${round + 1} reads ${name}: get ${Math.round(r.get.rps)}/s p99 ${r.get.p99} ms, ` +
              `search ${Math.round(r.searchOne.rps)}/s p99 ${r.searchOne.p99} ms`,
          );
        }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
  const loadAfter = loadavg();
  const m = (runs, pick) => (runs.length ? median(runs.map(pick)) : NaN);
  const f = (x) => (Number.isNaN(x) ? '-' : Math.round(x).toLocaleString('en-US'));
  console.log(
    `${storeSize.toLocaleString('en-US')} stored cards, ${rounds} rounds of ${seconds} s, 16 connections; ` +
      `load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} → ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`,
  );
  console.log('| measure | base | this | JSON store (this) |');
  console.log('| --- | --- | --- | --- |');
  const c = (name) => m(figures[name], (r) => r.rps);
  const p = (name) => m(figures[name], (r) => r.p99);
  const cpu = (name) => m(figures[name], (r) => r.cpuUsPerRequest);
  console.log(
    `| create cards/s (p99 ms; CPU µs/card) | ${['base', 'this', 'json'].map((n) => `${f(c(n))} (${f(p(n))}; ${f(cpu(n))})`).join(' | ')} |`,
  );
  console.log(
    `| create, share of JSON | ${f((100 * c('base')) / c('json'))}% | ${f((100 * c('this')) / c('json'))}% | |`,
  );
  for (const kind of ['get', 'searchOne'])
    console.log(
      `| ${kind} req/s (p99 ms; CPU µs/req) | ` +
        ['base', 'this']
          .map(
            (name) =>
              `${f(m(reads[name], (r) => r[kind].rps))} (${f(m(reads[name], (r) => r[kind].p99))}; ${f(m(reads[name], (r) => r[kind].cpuUsPerRequest))})`,
          )
          .join(' | ') +
        ' | |',
    );
} finally {
  pg.destroy();
}
