// The transparency log over HTTP, on real `cards serve` processes (issue 16):
//   npm run build && node bench/log-serve.mjs [N]      (N stored cards for start-up and audit;
//                                                        default 1,000,000; bench/node_modules
//                                                        needed: npm ci --prefix bench)
//   create   creates/s with the log on and with --no-log, alternating 3 × 5 s runs each on
//            two fresh stores in the same run; the ratio is the log's cost (issue: ≥ 90%)
//   proof    GET /log/proof/<id> requests/s, 16 connections (issue: ≥ 10,000/s)
//   tile     GET /log/tile/... requests/s, full hash tiles and bundles (issue: ≥ 20,000/s)
//   health   GET /health on the same server, same run: the load generator's ceiling here
//   start    start-up of a server whose log holds N cards, against the same store with
//            --no-log: loadEdge reads one tile per level, the tree is not recomputed
//   audit    `cards log audit --no-cards` of the N entries (recompute the tree, compare every
//            hash tile; issue: < 60 s at 10^6)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { blast, median } from './lib/load.mjs';
import { CARDS_BIN, hermeticEnv, startCards } from './lib/servers.mjs';
import { appKeyOf, copyStore, makeKeysDir, removeTempDirs } from './lib/stores.mjs';
import { createPool, storeIdentities } from './lib/cards.mjs';
import { openJsonStore } from '../dist/src/store/json-store.js';
import { cardIdOf } from '../dist/src/core/card-id.js';
import { tilePath } from '../dist/src/log/tile-path.js';

const N = Number(process.argv[2] ?? 1_000_000);
const fmt = (x) => Math.round(x).toLocaleString('en-US');
const say = (line) => process.stderr.write(`${line}\n`);
process.on('exit', removeTempDirs);

const keys = await makeKeysDir();
const identities = storeIdentities(2000);
const appKey = appKeyOf(keys);

// Create with the log on and off, alternating, same run.
const on = await startCards(copyStore(keys), ['--quiet']);
const off = await startCards(copyStore(keys), ['--quiet', '--no-log']);
const poolOn = await createPool(appKey, 60_000, identities);
const poolOff = await createPool(appKey, 60_000, identities);
const rates = { on: [], off: [] };
let sentOn = 0;
let sentOff = 0;
for (let round = 0; round < 3; round++) {
  say(`create round ${round + 1}: log off, then on`);
  const a = await blast(off.url, poolOff.slice(sentOff), { seconds: 5 });
  sentOff += a.sent;
  rates.off.push(a.rps);
  const b = await blast(on.url, poolOn.slice(sentOn), { seconds: 5 });
  sentOn += b.sent;
  rates.on.push(b.rps);
}
const createOn = median(rates.on);
const createOff = median(rates.off);

// Proofs and tiles on the server with the log, after the creates.
await new Promise((resolve) => setTimeout(resolve, 1500));
const size = Number((await (await fetch(`${on.url}/log/checkpoint`)).text()).split('\n')[1]);
const ids = poolOn
  .slice(0, Math.min(sentOn, 20_000))
  .map((r) => cardIdOf(Buffer.from(JSON.parse(r.body).content_snapshot, 'base64')));
const proofPool = ids.map((id) => ({ method: 'GET', path: `/log/proof/${id}`, headers: {} }));
const proof = await blast(on.url, proofPool, { seconds: 5 });
const tiles = [];
for (let i = 0; (i + 1) * 256 <= size; i++) {
  tiles.push(`/log/${tilePath({ level: 0, index: i, width: 256 })}`);
  tiles.push(`/log/${tilePath({ level: 'entries', index: i, width: 256 })}`);
}
const tile = await blast(
  on.url,
  tiles.map((path) => ({ method: 'GET', path, headers: {} })),
  {
    seconds: 5,
  },
);
// The load generator's own ceiling on this host, same run: a route that does almost nothing.
const health = await blast(on.url, [{ method: 'GET', path: '/health', headers: {} }], {
  seconds: 5,
});
await on.stop();
await off.stop();

// A store of N cards (written through the JSON store, snapshots as the registry stores them).
say(`building a store of ${fmt(N)} cards`);
const bigDir = copyStore(keys);
const store = await openJsonStore({ path: join(bigDir, 'cards.json') });
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
    `${Math.round((100 * createOn) / createOff)}% of log off (${fmt(createOff)}/s); issue ≥ 90%`,
  ],
  [
    'proof GET /log/proof/ID',
    `${fmt(proof.rps)}/s`,
    `p99 ${proof.p99} ms; tree of ${fmt(size)}; issue ≥ 10,000/s`,
  ],
  ['tile GET /log/tile/…', `${fmt(tile.rps)}/s`, `p99 ${tile.p99} ms; issue ≥ 20,000/s`],
  [
    'reference GET /health',
    `${fmt(health.rps)}/s`,
    `p99 ${health.p99} ms; proof ${Math.round((100 * proof.rps) / health.rps)}%, tile ${Math.round((100 * tile.rps) / health.rps)}% of it`,
  ],
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
for (const [what, figure, note] of rows)
  console.log(`${what.padEnd(30)} ${figure.padStart(12)}  ${note}`);
