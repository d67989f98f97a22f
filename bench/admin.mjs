// Benchmarks of the admin API and the page, at 100,000 cards (--quick: 20,000):
// a 100-card page of /_cards/cards, an identity's history, the export of the whole store, the
// page's first view in headless Chromium, and the card routes (get by id) with and without the
// admin API and its request journal (--no-admin), measured back to back, alternating, so the
// ratio is not the machine's drift. `npm run bench -- --admin [--quick]` runs only these.
// Where Debian's wrk is installed it drives the GET routes, both servers pinned to CPU 0 and wrk
// to CPU 1 (autocannon's own cost per request is about a get's, on the same two cores), and the
// admin cost is the median of each round's ratio of server CPU per get.
import { existsSync } from 'node:fs';
import { CHROMIUM, CHROMIUM_ARGS } from '../dist/test/helpers/chromium.js';
import { withCpu } from './cards-server.mjs';
import { blast, hasWrk, median, pinToCpu, wrkGet } from './lib/load.mjs';
import { storeIdentities, mintTokens } from './lib/cards.mjs';
import { startCards } from './lib/servers.mjs';
import { appKeyOf, buildStore, copyStore, makeKeysDir } from './lib/stores.mjs';

async function pageFirstView(url) {
  if (!existsSync(CHROMIUM)) return undefined;
  const { chromium } = await import('../node_modules/playwright-core/index.mjs');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  try {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const page = await browser.newPage();
      const started = performance.now();
      await page.goto(`${url}/`);
      await page.waitForSelector('#identities .identity-row');
      times.push(performance.now() - started);
      await page.close();
    }
    return median(times.slice(1)); // the first load warms the browser's own start-up
  } finally {
    await browser.close();
  }
}

export async function runAdminBench({ storeSize, seconds, rounds }) {
  const keysDir = await makeKeysDir();
  process.stderr.write(`building a store of ${storeSize} cards…\n`);
  const storeDir = await buildStore(keysDir, storeSize);
  const identities = storeIdentities(storeSize);
  // The admin API's figures come from withAdmin; the card routes' cost of the admin API is read
  // on gets from withAdmin (after it served the admin API), fresh (admin API on, journal and
  // metrics recording, but no admin route served: the per-request cost alone), noAdmin, and
  // noAdminUsed (no admin API, having served as many other requests: /health, the log, unknown
  // paths), which tells a cost of the admin API from that of a server having served other kinds
  // of requests before the gets.
  const withAdmin = await startCards(copyStore(storeDir), ['--quiet']);
  const fresh = await startCards(copyStore(storeDir), ['--quiet']);
  const noAdmin = await startCards(copyStore(storeDir), ['--quiet', '--no-admin']);
  const noAdminUsed = await startCards(copyStore(storeDir), ['--quiet', '--no-admin']);
  const servers = [withAdmin, fresh, noAdmin, noAdminUsed];
  const useWrk = hasWrk();
  if (useWrk) for (const server of servers) pinToCpu(server.proc.pid, 0);
  const read = (server, pool, seconds) =>
    useWrk
      ? wrkGet(
          server.url,
          pool.map((r) => r.path),
          { seconds, headers: pool[0].headers },
        )
      : blast(server.url, pool, { seconds });
  try {
    const token = [...(await mintTokens(appKeyOf(keysDir), ['bench'])).values()][0];
    const first = await (await fetch(`${withAdmin.url}/_cards/cards?limit=1000`)).json();
    const ids = first.cards.map((c) => c.id);
    const pick = (list) => list[Math.floor(Math.random() * list.length)];
    const cardPages = Array.from({ length: 2000 }, () => ({
      method: 'GET',
      headers: {},
      path: `/_cards/cards?limit=100&cursor=${Math.floor(Math.random() * (storeSize - 100))}`,
    }));
    const histories = Array.from({ length: 5000 }, () => ({
      method: 'GET',
      headers: {},
      path: `/_cards/identities/${encodeURIComponent(pick(identities))}`,
    }));
    const others = ['/health', '/log/checkpoint', '/log/tile/entries/000'].map((path) => ({
      method: 'GET',
      headers: {},
      path,
    }));
    const unknown = identities.slice(0, 2000).map((identity) => ({
      method: 'GET',
      headers: {},
      path: `/nope/${encodeURIComponent(identity)}`,
    }));
    // Any identity of the store, each once a pass: mostly histories not kept from before.
    const coldHistories = [...identities]
      .sort(() => Math.random() - 0.5)
      .map((identity) => ({
        method: 'GET',
        headers: {},
        path: `/_cards/identities/${encodeURIComponent(identity)}`,
      }));
    const gets = Array.from({ length: 10_000 }, () => ({
      method: 'GET',
      path: `/card/v5/${pick(ids)}`,
      headers: { authorization: `Service ${token}` },
    }));
    const out = {
      loadGenerator: useWrk ? 'wrk, server on CPU 0, wrk on CPU 1' : 'autocannon',
      storeSize,
      cardsPage: [],
      history: [],
      historyCold: [],
      exportSeconds: [],
      get: [],
      getFresh: [],
      getNoAdmin: [],
      getNoAdminUsed: [],
    };
    for (let r = 0; r < rounds; r++) {
      await read(withAdmin, cardPages, 1);
      out.cardsPage.push(await read(withAdmin, cardPages, seconds));
      // The cold row of the round before pushed these out of memory: one pass first, so the row
      // is what it says (the same 5,000 identities over and over).
      await read(withAdmin, histories, 1);
      out.history.push(await read(withAdmin, histories, seconds));
      out.historyCold.push(await read(withAdmin, coldHistories, seconds));
      for (const pool of [others, unknown, others]) await read(noAdminUsed, pool, seconds);
      const started = performance.now();
      const text = await (await fetch(`${withAdmin.url}/_cards/export`)).text();
      out.exportSeconds.push((performance.now() - started) / 1000);
      out.exportLines = text.split('\n').length - 1;
      // The collector's threads go on with the admin routes' garbage for a while after them,
      // and the process's CPU time counts those threads: let them finish before the gets, or
      // that work is charged to the gets of the server that served the admin API.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      // Alternating, each warmed, the order turned every round.
      const order = [
        ['get', withAdmin],
        ['getFresh', fresh],
        ['getNoAdmin', noAdmin],
        ['getNoAdminUsed', noAdminUsed],
      ];
      for (const [key, server] of [...order.slice(r % 4), ...order.slice(0, r % 4)]) {
        await read(server, gets, 1);
        out[key].push(await withCpu(server, () => read(server, gets, seconds)));
      }
    }
    out.pageFirstViewMs = await pageFirstView(withAdmin.url);
    return out;
  } finally {
    for (const server of servers) await server.stop();
  }
}

export function formatAdmin(out) {
  const med = (list, key) => median(list.map((x) => x[key]));
  const rps = (list) => Math.round(med(list, 'rps')).toLocaleString('en');
  const cost = 1 - med(out.get, 'rps') / med(out.getNoAdmin, 'rps');
  // The server's CPU per answered request: what the admin hook costs, whatever else limits
  // requests/s on a shared host (the load generator runs on the same two cores).
  const us = (list) => med(list, 'cpuUsPerRequest');
  // Each round's ratio first (the host drifts between rounds more than within one).
  const cpuCost = (list) =>
    median(list.map((x, i) => x.cpuUsPerRequest / out.getNoAdmin[i].cpuUsPerRequest)) - 1;
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  return [
    `admin API at ${out.storeSize.toLocaleString('en')} cards (medians of ${out.get.length} rounds; ${out.loadGenerator})`,
    `  /_cards/cards, 100-card page   ${rps(out.cardsPage)} req/s, p99 ${med(out.cardsPage, 'p99')} ms`,
    `  /_cards/identities/{identity}  ${rps(out.history)} req/s, p99 ${med(out.history, 'p99')} ms (5,000 identities over and over)`,
    `    any identity, each once       ${rps(out.historyCold)} req/s, p99 ${med(out.historyCold, 'p99')} ms (mostly not kept from before)`,
    `  /_cards/export                 ${median(out.exportSeconds).toFixed(2)} s for ${out.exportLines.toLocaleString('en')} cards`,
    `  page first view (Chromium)     ${out.pageFirstViewMs === undefined ? 'skipped: no /usr/bin/chromium' : `${Math.round(out.pageFirstViewMs)} ms`}`,
    `  GET /card/v5/:id with admin    ${rps(out.get)} req/s, ${rps(out.getFresh)} req/s on a server that served no admin route`,
    `  GET /card/v5/:id --no-admin    ${rps(out.getNoAdmin)} req/s (admin API and journal cost ${pct(cost)})`,
    `  server CPU per get             ${Math.round(us(out.getNoAdmin))} µs without the admin API; against it (medians of the rounds' ratios):`,
    `    with, no admin route served   ${Math.round(us(out.getFresh))} µs (${pct(cpuCost(out.getFresh))}): the journal and metrics per request`,
    `    with, admin API served        ${Math.round(us(out.get))} µs (${pct(cpuCost(out.get))})`,
    `    without, other routes served  ${Math.round(us(out.getNoAdminUsed))} µs (${pct(cpuCost(out.getNoAdminUsed))}): a server that served other requests first`,
  ].join('\n');
}
