// `node bench/tile-ab.mjs [--first b] [--rounds N]`: tile reads of two `cards serve` processes
// given the same history, in the same minutes. Each gets a store of its own, 10 s of creates and
// then 5 s of proofs (as in log-serve.mjs), one after the other (A first unless --first b);
// then their tiles and node's own http are measured in alternating rounds of 2 s (wrk pinned to
// CPU 1, the servers to CPU 0), each round's server CPU per request paired A against B.
// A_BIN / B_BIN pick the builds (default: this checkout's for both, an A/A control: what two
// identical processes differ by is the noise any A/B of the tile path has to beat).
import { parseArgs } from 'node:util';
import { fullTilePaths, logSize, proofPathsOf, startNodeHttp } from './log-serve.mjs';
import { blast, hasWrk, median, pinToCpu, wrkGet } from './lib/load.mjs';
import { CARDS_BIN, cpuMsOf, startCards } from './lib/servers.mjs';
import { appKeyOf, copyStore, makeKeysDir, removeTempDirs } from './lib/stores.mjs';
import { createPool, storeIdentities } from './lib/cards.mjs';

const { values } = parseArgs({
  options: { first: { type: 'string', default: 'a' }, rounds: { type: 'string', default: '8' } },
});
if (!hasWrk()) throw new Error('tile-ab needs wrk (apt-get install wrk)');
process.once('exit', removeTempDirs);
const say = (line) => process.stderr.write(`${line}\n`);

const keys = await makeKeysDir();
const bins = { A: process.env.A_BIN ?? CARDS_BIN, B: process.env.B_BIN ?? CARDS_BIN };
const order = values.first === 'b' ? ['B', 'A'] : ['A', 'B'];
const servers = {};
for (const name of order)
  servers[name] = await startCards(copyStore(keys), ['--quiet'], [], bins[name]);
// More cards than 10 s of creates take: a pool sent twice would create nothing the second time.
const pool = await createPool(appKeyOf(keys), 40_000, storeIdentities(2000));
let created = Infinity;
for (const name of order) {
  const r = await blast(servers[name].url, pool, { seconds: 10 });
  if (r.exhausted) throw new Error(`${name} took all ${pool.length} creates: raise the pool`);
  created = Math.min(created, r.answered);
  say(`${name}: ${r.answered} creates`);
}
await new Promise((resolve) => setTimeout(resolve, 1500));
const proofs = proofPathsOf(pool, Math.min(created, 20_000));
for (const name of order) await wrkGet(servers[name].url, proofs, { seconds: 5 });
const tiles = fullTilePaths(
  Math.min(...(await Promise.all(order.map((n) => logSize(servers[n].url))))),
  0,
);

const node = await startNodeHttp(8192);
const targets = { A: servers.A, B: servers.B, node };
for (const target of Object.values(targets)) pinToCpu(target.proc.pid, 0);
for (const target of Object.values(targets)) await wrkGet(target.url, tiles, { seconds: 1 });
const got = { A: [], B: [], node: [] };
for (let round = 0; round < Number(values.rounds); round++)
  for (const [name, target] of Object.entries(targets)) {
    const cpu = cpuMsOf(target.proc.pid);
    const r = await wrkGet(target.url, tiles, { seconds: 2 });
    got[name].push({ rps: r.rps, cpuUs: ((cpuMsOf(target.proc.pid) - cpu) * 1000) / r.answered });
  }
node.stop();
for (const server of Object.values(servers)) await server.stop();

const ratios = got.B.map((b, i) => b.cpuUs / got.A[i].cpuUs);
for (const [name, runs] of Object.entries(got))
  console.log(
    `${name.padEnd(4)} ${Math.round(median(runs.map((r) => r.rps)))} req/s, ` +
      `${median(runs.map((r) => r.cpuUs)).toFixed(1)} µs CPU a tile`,
  );
console.log(
  `B/A CPU a tile: median ${median(ratios).toFixed(2)}, by round ${ratios.map((x) => x.toFixed(2)).join(' ')}`,
);
