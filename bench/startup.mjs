// Start-up of `cards serve` on a store of N cards, to its "listening on" line: this build (A)
// and, with B_ROOT=<another checkout, built>, that build (B) on copies of one store, one start
// after the other in an order that alternates by round, so both see the same machine; medians.
// The store has never been served, so each start also brings its transparency log up to date;
// `--ab` also times a restart of the store each build has just served.
// `npm run bench -- --startup` runs it alone (100,000 cards, 7 rounds; --quick: 20,000, 5); the
// full run measures A's start-up every round and adds B's when B_ROOT is set.
import { join, resolve } from 'node:path';
import { median } from './lib/load.mjs';
import { CARDS_BIN, cpuMsOf, startCards } from './lib/servers.mjs';
import { buildStore, copyStore, makeKeysDir } from './lib/stores.mjs';

export const BUILDS = {
  A: CARDS_BIN,
  ...(process.env.B_ROOT && { B: join(resolve(process.env.B_ROOT), 'bin/cards.js') }),
};

/**
 * One start of each build on a copy of `storeDir`: listening ms by build; `cpu` gets the CPU ms
 * each server had used when it listened (a figure that holds up on a busy machine). With
 * `restart` (an object), each build also starts again on the copy it has just served, where the
 * log is up to date (the usual start of a store in use): `restart[name]` = { ms, cpu }.
 */
export async function startupRound(storeDir, round, cpu = {}, restart) {
  const names = Object.keys(BUILDS);
  if (round % 2 === 1) names.reverse();
  const out = {};
  for (const name of names) {
    const dir = copyStore(storeDir);
    const server = await startCards(dir, ['--quiet'], [], BUILDS[name]);
    out[name] = server.listeningMs;
    cpu[name] = cpuMsOf(server.proc.pid);
    await server.stop();
    if (!restart) continue;
    const again = await startCards(dir, ['--quiet'], [], BUILDS[name]);
    restart[name] = { ms: again.listeningMs, cpu: cpuMsOf(again.proc.pid) };
    await again.stop();
  }
  return out;
}

export async function runStartupBench({ storeSize, rounds }) {
  process.stderr.write(`start-up: building a store of ${storeSize} cards\n`);
  const store = await buildStore(await makeKeysDir(), storeSize);
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    runs.push(await startupRound(store, r));
    process.stderr.write(`start-up round ${r + 1}: ${JSON.stringify(runs.at(-1))}\n`);
  }
  return { storeSize, runs, medians: startupMedians(runs) };
}

export const startupMedians = (runs) =>
  Object.fromEntries(
    Object.keys(runs[0] ?? {}).map((name) => [name, median(runs.map((r) => r[name]))]),
  );

export function formatStartup({ storeSize, runs, medians }) {
  const ms = (n) => `${Math.round(n).toLocaleString('en-US')} ms`;
  const lines = Object.entries(medians).map(
    ([name, value]) => `${name} ${BUILDS[name]}: listening after ${ms(value)}`,
  );
  if (medians.B !== undefined)
    lines.push(`A/B: ${(medians.A / medians.B).toFixed(2)} (medians of ${runs.length} rounds)`);
  return `start-up with ${storeSize.toLocaleString('en-US')} cards (target ≤ 1,000 ms)\n${lines.join('\n')}`;
}
