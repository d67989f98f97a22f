// The request path's figures, each a ratio taken within one round (its two sides measured
// seconds apart, in an order turned every round) and reported as the median over the rounds:
//   tile      GET /log/tile/0/N (full hash tiles, 8 KiB) of `cards serve` against node's own
//             http serving the same bytes (the same tile files, read into memory at its start,
//             with the same content type and caching), each process serving tiles only: ≥ 60%;
//             a bare fastify sending the same bytes beside them (fastify's own share of node's)
//   get, search one identity, an identity's history (kept between requests): this build (A)
//             against another build (B, B_ROOT=<a checkout, built>: the build before a change)
//             on copies of one store: target ≥ 0.9× (requests/s; server CPU per request too)
//   create    creates with the admin API on (request journal and metrics) against --no-admin,
//             two fresh servers of this build: target ≤ 5% (server CPU per create, and req/s)
// In `npm run bench` (its last rows) and alone: `node bench/http-ab.mjs [--quick] [--rounds N]
// [--only tile,get,search,history,create]` (--only: those measures alone, to weigh one change)
// (after `npm run build`; needs wrk, `apt-get install wrk`). Every server is pinned to CPU 0 and
// wrk to CPU 1; creates are sent by autocannon from this process.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withCpu } from './cards-server.mjs';
import { createPool, mintTokens, storeIdentities } from './lib/cards.mjs';
import { blast, hasWrk, median, pinToCpu, wrkRun } from './lib/load.mjs';
import { cpuMsOf, startCards } from './lib/servers.mjs';
import {
  appKeyOf,
  buildStore,
  copyStore,
  makeKeysDir,
  removeTempDirs,
  storeIds,
} from './lib/stores.mjs';
import { tilePath } from '../dist/src/log/tile-path.js';

const say = (line) => process.stderr.write(`${line}\n`);
const pick = (list) => list[Math.floor(Math.random() * list.length)];

const TILE_HEADERS = `{ 'content-type': 'application/octet-stream', 'content-length': body.length, 'cache-control': 'public, max-age=31536000, immutable' }`;
/**
 * What answers each of `paths` with its file under `dir` besides `cards serve`: node's own http,
 * or a bare fastify (one route, no hook) sending the same bytes with the same headers, so a run
 * shows what fastify alone costs beside what the service adds to it.
 */
const TILE_SERVERS = {
  node: `require('node:http').createServer((request, response) => {
  const body = files.get(request.url);
  response.writeHead(200, ${TILE_HEADERS});
  response.end(body);
}).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`,
  fastify: `const app = require(${JSON.stringify(fileURLToPath(import.meta.resolve('fastify')))})({ logger: false });
app.get('/log/*', (request, reply) => {
  reply.header('cache-control', 'public, max-age=31536000, immutable').type('application/octet-stream').send(files.get(request.url));
});
app.listen({ port: 0, host: '127.0.0.1' }).then((url) => console.log('listening on ' + url));`,
};

/** `kind` of TILE_SERVERS answering each of `paths` with its file under `dir`, from memory. */
async function startTileServer(kind, dir, paths) {
  const source = `const { readFileSync } = require('node:fs');
const files = new Map(JSON.parse(process.argv[1]).map((path) => [\`/log/\${path}\`, readFileSync(process.argv[2] + '/' + path)]));
${TILE_SERVERS[kind]}`;
  const proc = spawn(process.execPath, ['-e', source, JSON.stringify(paths), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((done) =>
    proc.stdout.setEncoding('utf8').once('data', (line) => done(line.trim().split(' ').at(-1))),
  );
  return { proc, url, stop: async () => void proc.kill() };
}

/** A GET or search run on one server, with its CPU per request. */
const run = async (server, requests, seconds) => {
  const cpu = cpuMsOf(server.proc.pid);
  const r = await wrkRun(server.url, requests, { seconds, cpu: 1 });
  return { ...r, cpuUs: ((cpuMsOf(server.proc.pid) - cpu) * 1000) / Math.max(1, r.answered) };
};

/** The measures, in the order they run. */
export const HTTP_MEASURES = ['tile', 'get', 'search', 'history', 'create'];

export async function runHttpBench({
  quick = false,
  rounds = quick ? 3 : 5,
  only = HTTP_MEASURES,
} = {}) {
  const unknown = only.filter((what) => !HTTP_MEASURES.includes(what));
  if (unknown.length > 0) throw new Error(`no such measure: ${unknown.join(', ')}`);
  if (!hasWrk()) throw new Error('the request path bench needs wrk (apt-get install wrk)');
  const size = quick ? 10_000 : 20_000;
  const seconds = quick ? 2 : 3;
  const bRoot = process.env.B_ROOT && resolve(process.env.B_ROOT);
  const keys = await makeKeysDir();
  say(`building a store of ${size} cards`);
  const store = await buildStore(keys, size);
  // One first start makes the log (its key, its tiles): every copy then serves the same log.
  await (await startCards(store, ['--quiet'])).stop();
  const identities = storeIdentities(size);
  const ids = storeIds(store);
  const [token] = (await mintTokens(appKeyOf(keys), ['reader@example.com'])).values();
  const auth = { authorization: `Service ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const allReads = {
    get: Array.from({ length: 5000 }, () => ({
      method: 'GET',
      path: `/card/v5/${pick(ids)}`,
      headers: auth,
    })),
    search: Array.from({ length: 5000 }, () => ({
      method: 'POST',
      path: '/card/v5/actions/search',
      headers: json,
      body: JSON.stringify({ identity: pick(identities) }),
    })),
    history: identities.slice(0, 5000).map((identity) => ({
      method: 'GET',
      path: `/_cards/identities/${encodeURIComponent(identity)}`,
      headers: {},
    })),
  };
  const reads = Object.fromEntries(
    Object.entries(allReads).filter(([what]) => only.includes(what)),
  );
  const tileOn = only.includes('tile');
  const createOn = only.includes('create');
  const tiles = Array.from({ length: Math.floor(size / 256) }, (_, index) =>
    tilePath({ level: 0, index, width: 256 }),
  );

  // Tiles are measured on servers that serve nothing else, as node's own http does: what a
  // process served before changes how fast node's http code runs in it (docs/benchmarks.md).
  // Every round starts its own processes: a process's speed is partly set at its start (a build
  // that holds no nextTick record runs node's nextTick fast or slow by when the collector ran,
  // docs/benchmarks.md), so a median over rounds is one over processes too, not one process's
  // start taken as the build's.
  const build = (name) => (name === 'B' ? join(bRoot, 'bin/cards.js') : undefined);
  const builds = bRoot ? ['A', 'B'] : ['A'];
  const tileDir = join(store, 'cards.json.log');
  const starters = {};
  if (tileOn)
    for (const kind of Object.keys(TILE_SERVERS))
      starters[kind] = () => startTileServer(kind, tileDir, tiles);
  for (const name of builds) {
    const readStore = copyStore(store);
    const tileStore = copyStore(store);
    if (Object.keys(reads).length > 0)
      starters[name] = () => startCards(readStore, ['--quiet'], [], build(name));
    if (tileOn)
      starters[`tile ${name}`] = () => startCards(tileStore, ['--quiet'], [], build(name));
  }
  const creates = {};
  if (createOn) {
    starters.admin = () => startCards(copyStore(keys), ['--quiet', '--no-log']);
    starters.noAdmin = () => startCards(copyStore(keys), ['--quiet', '--no-log', '--no-admin']);
    creates.admin = await createPool(appKeyOf(keys), 20_000, storeIdentities(2000));
    creates.noAdmin = await createPool(appKeyOf(keys), 20_000, storeIdentities(2000));
  }
  const measures = {
    ...(tileOn && {
      tile: {
        on: [...Object.keys(TILE_SERVERS), ...builds.map((name) => `tile ${name}`)],
        requests: tiles.map((path) => ({ method: 'GET', path: `/log/${path}`, headers: {} })),
      },
    }),
    ...Object.fromEntries(
      Object.entries(reads).map(([what, requests]) => [what, { on: builds, requests }]),
    ),
  };

  const got = {};
  const record = (key, value) => (got[key] ??= []).push(value);
  for (let round = 0; round < rounds; round++) {
    say(`round ${round + 1} of ${rounds}: starting the servers, then a warm-up`);
    const servers = {};
    try {
      for (const [name, start] of Object.entries(starters)) servers[name] = await start();
      for (const server of Object.values(servers)) pinToCpu(server.proc.pid, 0);
      // Every request of the round sent before it, twice (a history or a tile is kept once
      // read: a side still reading them would pay for that), and at least 20,000 for the JIT.
      for (const { on, requests } of Object.values(measures))
        for (const name of on)
          await blast(servers[name].url, requests, {
            amount: Math.max(2 * requests.length, 20_000),
          });
      // Each of the pool's 2,000 identities once: every token verified and remembered before
      // the round (a side still verifying new tokens would pay for that, not for the admin API).
      const sent = { admin: 0, noAdmin: 0 };
      const create = async (name, load) => {
        const server = servers[name];
        const r = await withCpu(server, () =>
          blast(server.url, creates[name].slice(sent[name]), load),
        );
        sent[name] += r.sent;
        if (r.exhausted) throw new Error(`${name}: the create pool ran out`);
        return { rps: r.rps, cpuUs: r.cpuUsPerRequest };
      };
      if (createOn) for (const name of ['admin', 'noAdmin']) await create(name, { amount: 2500 });

      const turn = (list) => (round % 2 === 0 ? list : [...list].reverse());
      for (const [what, { on, requests }] of Object.entries(measures))
        for (const name of turn(on))
          record(`${what} ${name.split(' ').at(-1)}`, await run(servers[name], requests, seconds));
      if (createOn)
        for (const name of turn(['admin', 'noAdmin']))
          record(`create ${name}`, await create(name, { seconds }));
    } finally {
      for (const server of Object.values(servers)) await server.stop();
    }
  }
  const ratio = (a, b, key = 'rps') => median(got[a].map((x, i) => x[key] / got[b][i][key]));
  const mid = (name, key = 'rps') => median(got[name].map((x) => x[key]));
  return {
    rounds,
    seconds,
    size,
    got,
    ...(tileOn && {
      tile: {
        rps: mid('tile A'),
        node: mid('tile node'),
        share: ratio('tile A', 'tile node'),
        cpu: ratio('tile A', 'tile node', 'cpuUs'),
        fastify: mid('tile fastify'),
        fastifyShare: ratio('tile fastify', 'tile node'),
        fastifyCpu: ratio('tile fastify', 'tile node', 'cpuUs'),
      },
    }),
    ...(bRoot && {
      ab: Object.fromEntries(
        Object.keys(measures).map((what) => [
          what,
          {
            A: mid(`${what} A`),
            B: mid(`${what} B`),
            rps: ratio(`${what} A`, `${what} B`),
            cpu: ratio(`${what} A`, `${what} B`, 'cpuUs'),
          },
        ]),
      ),
    }),
    ...(createOn && {
      create: {
        admin: mid('create admin'),
        noAdmin: mid('create noAdmin'),
        rpsCost: 1 - ratio('create admin', 'create noAdmin'),
        cpuCost: ratio('create admin', 'create noAdmin', 'cpuUs') - 1,
      },
    }),
  };
}

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const pct = (x) => `${(100 * x).toFixed(1)}%`;

export function formatHttp(out) {
  const rows = [
    `the request path (medians of ${out.rounds} rounds of ${out.seconds} s; ${fmt(out.size)} stored cards; wrk, servers on CPU 0)`,
  ];
  if (out.tile)
    rows.push(
      `  tile GET /log/tile/0/N           ${fmt(out.tile.rps)}/s = ${pct(out.tile.share)} of node's own http serving the same bytes (${fmt(out.tile.node)}/s; server CPU per tile ${out.tile.cpu.toFixed(2)}× node's); target ≥ 60%`,
      `  tile, a bare fastify            ${fmt(out.tile.fastify)}/s = ${pct(out.tile.fastifyShare)} of node's (server CPU per tile ${out.tile.fastifyCpu.toFixed(2)}× node's): fastify's own share`,
    );
  if (out.ab)
    for (const [what, r] of Object.entries(out.ab))
      rows.push(
        `  ${`${what} A/B`.padEnd(31)}${fmt(r.A)}/s against ${fmt(r.B)}/s: ${r.rps.toFixed(2)}× (server CPU per request ${r.cpu.toFixed(2)}×)${what === 'tile' ? '' : '; target ≥ 0.9×'}`,
      );
  else rows.push('  get, search, history A/B        skipped: set B_ROOT to another built checkout');
  if (out.create)
    rows.push(
      `  create, admin API on            ${fmt(out.create.admin)}/s against ${fmt(out.create.noAdmin)}/s with --no-admin: costs ${pct(out.create.rpsCost)} of req/s, ${pct(out.create.cpuCost)} of server CPU per create; target ≤ 5%`,
    );
  return rows.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      only: { type: 'string' },
    },
  });
  process.once('exit', removeTempDirs);
  const out = await runHttpBench({
    quick: values.quick,
    ...(values.rounds && { rounds: Number(values.rounds) }),
    ...(values.only && { only: values.only.split(',') }),
  });
  console.log(formatHttp(out));
}
