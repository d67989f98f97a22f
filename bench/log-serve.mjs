// The transparency log over HTTP, on real `cards serve` processes, in `npm run bench`
// (its last rows) and alone:
//   npm run build && node bench/log-serve.mjs [N]      (N stored cards for start-up and audit;
//                                                        default 1,000,000; bench/node_modules
//                                                        needed: npm ci --prefix bench)
//   create   creates/s with the log on and with --no-log, alternating 3 × 5 s runs each on
//            two fresh stores in the same run; the ratio is the log's cost (issue: ≥ 90%)
//   proof    GET /log/proof/<id> requests/s, 16 connections, over 20,000 cards in turn: after
//            the first pass each proof comes from the server's cache (issue: ≥ 10,000/s)
//   tile     GET /log/tile/0/N requests/s, full hash tiles (issue: ≥ 20,000/s)
//   bundle   GET /log/tile/entries/N requests/s, full entry bundles (about 40 KiB here)
//   health   GET /health on the same server, same run: a route that does almost nothing
//            (wrk from Debian's package is used where installed, the server pinned to CPU 0 and
//            wrk to CPU 1; else autocannon, whose own cost per request is about a tile's)
//   node     node's own http server sending a constant 8 KiB (a full tile's size), same run and
//            pinning: what this host allows a Node.js process, whatever the code above it
//   start    start-up of a server whose log holds N cards, against the same store with
//            --no-log: loadEdge reads one tile per level, the tree is not recomputed
//   audit    `cards log audit --no-cards` of the N entries (recompute the tree, compare every
//            hash tile; issue: < 60 s at 10^6)
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blast, hasWrk, median, pinToCpu, wrkGet } from './lib/load.mjs';
import { CARDS_BIN, cpuMsOf, hermeticEnv, startCards } from './lib/servers.mjs';
import { appKeyOf, copyStore, makeKeysDir, removeTempDirs } from './lib/stores.mjs';
import { createPool, storeIdentities } from './lib/cards.mjs';
import { JsonStore } from '../dist/src/store/json/json-store.js';
import { cardIdOf } from '../dist/src/core/card-id.js';
import { tilePath } from '../dist/src/log/tile-path.js';

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const say = (line) => process.stderr.write(`${line}\n`);

/** node's own http server answering every request with `bytes` zero bytes. */
export async function startNodeHttp(bytes) {
  const source = `const body = Buffer.alloc(${bytes});
require('node:http').createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
  response.end(body);
}).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;
  const proc = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve) =>
    proc.stdout.setEncoding('utf8').once('data', (line) => resolve(line.trim().split(' ').at(-1))),
  );
  return { proc, url, stop: () => proc.kill() };
}

/** The size of the log a server publishes (its checkpoint's second line). */
export const logSize = async (url) =>
  Number((await (await fetch(`${url}/log/checkpoint`)).text()).split('\n')[1]);

/** GET paths of the proofs of the first `count` cards of a create pool. */
export const proofPathsOf = (pool, count) =>
  pool
    .slice(0, count)
    .map(
      (r) => `/log/proof/${cardIdOf(Buffer.from(JSON.parse(r.body).content_snapshot, 'base64'))}`,
    );

/** GET paths of the full tiles at `level` (0, 1, … or 'entries') of a log of `size` entries. */
export const fullTilePaths = (size, level) =>
  Array.from(
    { length: Math.floor(size / 256) },
    (_, index) => `/log/${tilePath({ level, index, width: 256 })}`,
  );

/** Every row of the log's bench; `N` stored cards for the start-up and audit rows. */
export async function runLogBench(N) {
  const keys = await makeKeysDir();
  const identities = storeIdentities(2000);
  const appKey = appKeyOf(keys);

  // Create with the log on and off, alternating, same run: a warm-up blast of each first (not
  // counted: the first seconds of a server are its JIT's), then 3 rounds in alternating order,
  // each with the server's CPU time per create (steadier than req/s on a shared host); the
  // ratios are the medians of each round's pair.
  const on = await startCards(copyStore(keys), ['--quiet']);
  const off = await startCards(copyStore(keys), ['--quiet', '--no-log']);
  const poolOn = await createPool(appKey, 60_000, identities);
  const poolOff = await createPool(appKey, 60_000, identities);
  const sides = {
    on: { server: on, pool: poolOn, sent: 0, rps: [], cpuUs: [] },
    off: { server: off, pool: poolOff, sent: 0, rps: [], cpuUs: [] },
  };
  const create = async (side, seconds) => {
    const cpu = cpuMsOf(side.server.proc.pid);
    const r = await blast(side.server.url, side.pool.slice(side.sent), { seconds });
    // The log's last batch of the blast is the log's cost too.
    await new Promise((resolve) => setTimeout(resolve, 700));
    side.sent += r.sent;
    return { rps: r.rps, cpuUs: ((cpuMsOf(side.server.proc.pid) - cpu) * 1000) / r.answered };
  };
  say('create warm-up: log off, then on');
  for (const side of [sides.off, sides.on]) await create(side, 2);
  for (let round = 0; round < 3; round++) {
    const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    say(`create round ${round + 1}: log ${order.join(', then ')}`);
    for (const name of order) {
      const r = await create(sides[name], 5);
      sides[name].rps.push(r.rps);
      sides[name].cpuUs.push(r.cpuUs);
    }
  }
  const createOn = median(sides.on.rps);
  const createOff = median(sides.off.rps);
  const pairs = (key) => median(sides.on[key].map((x, i) => x / sides.off[key][i]));
  const createRatio = pairs('rps');
  const createCpu = {
    on: median(sides.on.cpuUs),
    off: median(sides.off.cpuUs),
    ratio: pairs('cpuUs'),
  };

  // Proofs, tiles and /health on the server with the log, after the creates, alternating, 3
  // rounds each after a warm-up pass (a served tile stays in memory): medians. Where wrk is
  // installed the server is pinned to CPU 0 and wrk to CPU 1, so the figure is the server's and
  // not autocannon's (whose own cost per request is about that of a tile); the server's CPU time
  // per request is reported too (capacity per core, whatever else the machine is doing).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const size = await logSize(on.url);
  const proofPaths = proofPathsOf(poolOn, Math.min(sides.on.sent, 20_000));
  const tilePaths = fullTilePaths(size, 0);
  const bundlePaths = fullTilePaths(size, 'entries');
  const useWrk = hasWrk();
  if (useWrk) pinToCpu(on.proc.pid, 0);
  const getRun = async (paths, seconds) => {
    const cpu = cpuMsOf(on.proc.pid);
    const r = useWrk
      ? await wrkGet(on.url, paths, { seconds, cpu: 1 })
      : await blast(
          on.url,
          paths.map((path) => ({ method: 'GET', path, headers: {} })),
          { seconds },
        );
    return { ...r, cpuUs: ((cpuMsOf(on.proc.pid) - cpu) * 1000) / Math.max(1, r.answered) };
  };
  const reads = { proof: proofPaths, tile: tilePaths, bundle: bundlePaths, health: ['/health'] };
  const got = { proof: [], tile: [], bundle: [], health: [], node: [] };
  const nodeHttp = useWrk ? await startNodeHttp(8192) : undefined;
  if (nodeHttp) pinToCpu(nodeHttp.proc.pid, 0);
  for (const paths of Object.values(reads)) await getRun(paths, 1);
  for (let round = 0; round < 3; round++) {
    say(
      `reads round ${round + 1}: proof, tile, bundle, /health${useWrk ? ', node http (wrk, pinned)' : ''}`,
    );
    for (const [name, paths] of Object.entries(reads)) got[name].push(await getRun(paths, 5));
    if (nodeHttp) got.node.push(await wrkGet(nodeHttp.url, tilePaths, { seconds: 5, cpu: 1 }));
  }
  nodeHttp?.stop();
  const mid = (name, key) => median(got[name].map((r) => r[key]));
  const proof = {
    rps: mid('proof', 'rps'),
    p99: mid('proof', 'p99'),
    cpuUs: mid('proof', 'cpuUs'),
  };
  const tile = { rps: mid('tile', 'rps'), p99: mid('tile', 'p99'), cpuUs: mid('tile', 'cpuUs') };
  const bundle = {
    rps: mid('bundle', 'rps'),
    p99: mid('bundle', 'p99'),
    cpuUs: mid('bundle', 'cpuUs'),
  };
  const health = {
    rps: mid('health', 'rps'),
    p99: mid('health', 'p99'),
    cpuUs: mid('health', 'cpuUs'),
  };
  const nodeRps = got.node.length > 0 ? mid('node', 'rps') : undefined;
  await on.stop();
  await off.stop();

  // A store of N cards (written through the JSON store, snapshots as the registry stores them).
  say(`building a store of ${fmt(N)} cards`);
  const bigDir = copyStore(keys);
  const store = await JsonStore.open({ path: join(bigDir, 'cards.json') });
  const key = 'MCowBQYDK2VwAyEA' + 'A'.repeat(43) + '=';
  for (let start = 0; start < N; start += 5000) {
    const batch = [];
    for (let i = start; i < Math.min(N, start + 5000); i++) {
      const snapshot = `{"identity":"user-${i}@example.com","public_key":"${key}","version":"5.0","created_at":${1_700_000_000 + i}}`;
      const bytes = Buffer.from(snapshot);
      batch.push(
        store.insert({
          id: cardIdOf(bytes),
          identity: `user-${i}@example.com`,
          content_snapshot: bytes.toString('base64'),
          signatures: [],
        }),
      );
    }
    await Promise.all(batch);
  }
  await store.close();
  say('first start with the log: integrates every card (one-off)');
  const first = await startCards(bigDir, ['--quiet']);
  const firstMs = first.listeningMs;
  await first.stop();
  const startLog = [];
  const startNoLog = [];
  for (let round = 0; round < 3; round++) {
    const a = await startCards(bigDir, ['--quiet', '--no-log']);
    startNoLog.push(a.listeningMs);
    await a.stop();
    const b = await startCards(bigDir, ['--quiet']);
    startLog.push(b.listeningMs);
    if (round < 2) await b.stop();
    else {
      say(`auditing ${fmt(N)} entries`);
      const t0 = performance.now();
      execFileSync(
        process.execPath,
        [CARDS_BIN, 'log', 'audit', '--url', b.url, '--no-cards', '--json'],
        {
          env: hermeticEnv({ CARDS_HOME: join(bigDir, 'home') }),
          maxBuffer: 1 << 26,
        },
      );
      var auditS = (performance.now() - t0) / 1000;
      await b.stop();
    }
  }

  const rows = [
    [
      'create, log on',
      `${fmt(createOn)}/s`,
      `${Math.round(100 * createRatio)}% of log off (${fmt(createOff)}/s); server ${fmt(createCpu.on)} µs CPU each against ${fmt(createCpu.off)} (${Math.round(100 * createCpu.ratio)}%); issue ≥ 90%`,
    ],
    [
      'proof GET /log/proof/ID',
      `${fmt(proof.rps)}/s`,
      `p99 ${proof.p99} ms; server ${fmt(proof.cpuUs)} µs CPU each (${fmt(1e6 / proof.cpuUs)}/s a core); tree of ${fmt(size)}; issue ≥ 10,000/s`,
    ],
    [
      'tile GET /log/tile/0/N',
      `${fmt(tile.rps)}/s`,
      `p99 ${tile.p99} ms; full hash tiles (8 KiB); server ${fmt(tile.cpuUs)} µs CPU each (${fmt(1e6 / tile.cpuUs)}/s a core); issue ≥ 20,000/s`,
    ],
    [
      'bundle GET /log/tile/entries/N',
      `${fmt(bundle.rps)}/s`,
      `p99 ${bundle.p99} ms; full entry bundles (256 cards); server ${fmt(bundle.cpuUs)} µs CPU each`,
    ],
    [
      'reference GET /health',
      `${fmt(health.rps)}/s`,
      `p99 ${health.p99} ms; server ${fmt(health.cpuUs)} µs CPU each; proof ${Math.round((100 * proof.rps) / health.rps)}%, tile ${Math.round((100 * tile.rps) / health.rps)}% of it`,
    ],
    ...(nodeRps === undefined
      ? []
      : [
          [
            "reference node's own http",
            `${fmt(nodeRps)}/s`,
            `a constant 8 KiB, no framework: this host's ceiling; tile ${Math.round((100 * tile.rps) / nodeRps)}% of it`,
          ],
        ]),
    [
      `start-up, ${fmt(N)} logged`,
      `${fmt(median(startLog))} ms`,
      `--no-log: ${fmt(median(startNoLog))} ms; first start (integrates all): ${fmt(firstMs)} ms`,
    ],
    [
      `log audit, ${fmt(N)} entries`,
      `${auditS.toFixed(1)} s`,
      'tree recomputed, every hash tile compared; issue < 60 s',
    ],
  ];
  return rows;
}

export const formatLog = (rows) =>
  rows
    .map(([what, figure, note]) => `${what.padEnd(30)} ${figure.padStart(12)}  ${note}`)
    .join('\n');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('exit', removeTempDirs);
  console.log(formatLog(await runLogBench(Number(process.argv[2] ?? 1_000_000))));
}
