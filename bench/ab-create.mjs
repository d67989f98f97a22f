// The JSON engine against another build in one run: start-up and restart with N cards
// (startup.mjs) and create into a store of N cards with the log and the admin API on (as
// `cards serve` starts), this build (A) and B_ROOT's (B) on copies of one store, one after the
// other in an order that alternates by round, each round beside the one-core crypto bound (one
// Ed25519 verify with key import plus one sign, crypto.mjs) and the create floor (the least a
// node HTTP server does for a create, lib/create-floor-server.mjs) measured in that round;
// medians over rounds, ratios taken within a round.
// `npm run bench -- --ab` runs it (100,000 cards, 5 rounds of 3 s; --quick: 20,000, 3 of 1 s);
// without B_ROOT it measures this build alone.
import { createCursor, measureCreate } from './cards-server.mjs';
import { measureCrypto } from './crypto.mjs';
import { createPool } from './lib/cards.mjs';
import { median } from './lib/load.mjs';
import { startCards, startCreateFloor } from './lib/servers.mjs';
import { appKeyOf, buildStore, copyStore, makeKeysDir } from './lib/stores.mjs';
import { BUILDS, startupMedians, startupRound } from './startup.mjs';

const say = (line) => process.stderr.write(`${line}\n`);

/** Creates/s of each build into a fresh copy of `storeDir`, and of the floor, from the same cards. */
async function createRound(storeDir, cursor, round, { seconds, warm }) {
  const names = [...Object.keys(BUILDS), 'floor'];
  if (round % 2 === 1) names.reverse();
  const out = {};
  for (const name of names) {
    const dir = copyStore(storeDir);
    const server =
      name === 'floor'
        ? await startCreateFloor(dir)
        : await startCards(dir, ['--quiet'], [], BUILDS[name]);
    try {
      cursor.reset();
      out[name] = await measureCreate(server, cursor, { seconds, warm });
    } finally {
      await server.stop();
    }
  }
  return out;
}

export async function runCreateAb({ storeSize, rounds, seconds, warm = 2_000 }) {
  say(`ab: building a store of ${storeSize} cards`);
  const store = await buildStore(await makeKeysDir(), storeSize);
  // A pool one run cannot exhaust: creates never outrun the crypto bound.
  const ceiling = Math.max(measureCrypto(1, { noble: false }).createBound, 8_000);
  const poolSize = warm + Math.ceil(ceiling * seconds * 1.3);
  say(`ab: ${poolSize} signed cards for 1,000 identities`);
  const identities = Array.from({ length: 1000 }, (_, k) => `ab-${k}@example.com`);
  const cursor = createCursor(await createPool(appKeyOf(store), poolSize, identities));
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const startupCpu = {};
    const restart = {};
    const startup = await startupRound(store, r, startupCpu, restart);
    const bound = measureCrypto(1, { noble: false }).createBound;
    const create = await createRound(store, cursor, r, { seconds, warm });
    const failed = Object.values(create).reduce((n, run) => n + run.failed, 0);
    runs.push({
      startup,
      startupCpu,
      restart: mapValues(restart, (run) => run.ms),
      restartCpu: mapValues(restart, (run) => run.cpu),
      bound,
      create: mapValues(create, (run) => run.rps),
      createCpuUs: mapValues(create, (run) => run.cpuUsPerRequest),
      failed,
    });
    say(`ab round ${r + 1}: ${JSON.stringify(runs.at(-1))}`);
  }
  return { storeSize, seconds, runs, medians: abMedians(runs) };
}

const mapValues = (object, fn) =>
  Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value, key)]));

function abMedians(runs) {
  const m = (fn) => median(runs.map(fn));
  return {
    startup: startupMedians(runs.map((r) => r.startup)),
    startupCpu: startupMedians(runs.map((r) => r.startupCpu)),
    restart: startupMedians(runs.map((r) => r.restart)),
    restartCpu: startupMedians(runs.map((r) => r.restartCpu)),
    createCpuUs: mapValues(runs[0].create, (_, name) => m((r) => r.createCpuUs[name])),
    bound: m((r) => r.bound),
    create: mapValues(runs[0].create, (_, name) => m((r) => r.create[name])),
    ofBound: mapValues(runs[0].create, (_, name) => m((r) => r.create[name] / r.bound)),
    ofFloor: m((r) => r.create.A / r.create.floor),
    ...(runs[0].create.B !== undefined && {
      ratio: m((r) => r.create.A / r.create.B),
      startupRatio: m((r) => r.startup.A / r.startup.B),
      createCpuRatio: m((r) => r.createCpuUs.A / r.createCpuUs.B),
      startupCpuRatio: m((r) => r.startupCpu.A / r.startupCpu.B),
      restartRatio: m((r) => r.restart.A / r.restart.B),
    }),
    failed: runs.reduce((n, r) => n + r.failed, 0),
  };
}

export function formatCreateAb({ storeSize, seconds, runs, medians }) {
  const int = (n) => Math.round(n).toLocaleString('en-US');
  const pct = (x) => `${Math.round(x * 100)}%`;
  const size = int(storeSize);
  const lines = [
    `JSON engine, ${size} cards, log and admin on; medians of ${runs.length} rounds of ${seconds} s`,
  ];
  for (const name of Object.keys(BUILDS)) {
    const create = medians.create[name];
    lines.push(
      `${name} ${BUILDS[name]}: start-up ${int(medians.startup[name])} ms ` +
        `(${int(medians.startupCpu[name])} ms CPU), restart ${int(medians.restart[name])} ms ` +
        `(${int(medians.restartCpu[name])} ms CPU; target ≤ 1,000), ` +
        `create ${int(create)}/s = ${pct(medians.ofBound[name])} of the crypto bound ` +
        `(${int(medians.bound)}/s), ${int(medians.createCpuUs[name])} µs CPU each`,
    );
  }
  lines.push(
    `floor (node:http, verify with key import, sign, group fdatasync; nothing else): ` +
      `${int(medians.create.floor)}/s = ${pct(medians.ofBound.floor)} of the crypto bound, ` +
      `${int(medians.createCpuUs.floor)} µs CPU each; A reaches ` +
      `${pct(medians.ofFloor)} of the floor`,
  );
  if (medians.ratio !== undefined)
    lines.push(
      `A/B: create ${medians.ratio.toFixed(2)}× (target ≥ 0.95), CPU per create ` +
        `${medians.createCpuRatio.toFixed(2)}×; start-up ${medians.startupRatio.toFixed(2)}×, ` +
        `its CPU ${medians.startupCpuRatio.toFixed(2)}×; restart ${medians.restartRatio.toFixed(2)}×`,
    );
  if (medians.failed > 0) lines.push(`WARNING: ${medians.failed} creates did not answer 2xx`);
  return lines.join('\n');
}
