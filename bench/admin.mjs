// Benchmarks of the admin API and the page (issue 15), at 100,000 cards (--quick: 20,000):
// a 100-card page of /_cards/cards, an identity's history, the export of the whole store, the
// page's first view in headless Chromium, and the card routes (get by id) with and without the
// admin API and its request journal (--no-admin), measured back to back, alternating, so the
// ratio is not the machine's drift. `npm run bench -- --admin [--quick]` runs only these.
// Where Debian's wrk is installed it drives the GET routes, both servers pinned to CPU 0 and wrk
// to CPU 1 (autocannon's own cost per request is about a get's, on the same two cores), and the
// admin cost is the median of each round's ratio of server CPU per get.
import { existsSync } from 'node:fs';
import { withCpu } from './cards-server.mjs';
import { blast, hasWrk, median, pinToCpu, wrkGet } from './lib/load.mjs';
import { storeIdentities, mintTokens } from './lib/cards.mjs';
import { startCards } from './lib/servers.mjs';
import { appKeyOf, buildStore, copyStore, makeKeysDir } from './lib/stores.mjs';

const CHROMIUM = '/usr/bin/chromium';

async function pageFirstView(url) {
  if (!existsSync(CHROMIUM)) return undefined;
  const { chromium } = await import('../node_modules/playwright-core/index.mjs');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
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
  const withAdmin = await startCards(copyStore(storeDir), ['--quiet']);
  const noAdmin = await startCards(copyStore(storeDir), ['--quiet', '--no-admin']);
  const useWrk = hasWrk();
  if (useWrk) for (const server of [withAdmin, noAdmin]) pinToCpu(server.proc.pid, 0);
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
      exportSeconds: [],
      get: [],
      getNoAdmin: [],
    };
    for (let r = 0; r < rounds; r++) {
      await read(withAdmin, cardPages, 1);
      out.cardsPage.push(await read(withAdmin, cardPages, seconds));
      out.history.push(await read(withAdmin, histories, seconds));
      const started = performance.now();
      const text = await (await fetch(`${withAdmin.url}/_cards/export`)).text();
      out.exportSeconds.push((performance.now() - started) / 1000);
      out.exportLines = text.split('\n').length - 1;
      // Alternating, each warmed, the order swapped every round: with the admin API and
      // journal, and without.
      const pair = [
        ['get', withAdmin],
        ['getNoAdmin', noAdmin],
      ];
      for (const [key, server] of r % 2 === 0 ? pair : pair.reverse()) {
        await read(server, gets, 1);
        out[key].push(await withCpu(server, () => read(server, gets, seconds)));
      }
    }
    out.pageFirstViewMs = await pageFirstView(withAdmin.url);
    return out;
  } finally {
    await withAdmin.stop();
    await noAdmin.stop();
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
  const cpuCost =
    median(out.get.map((x, i) => x.cpuUsPerRequest / out.getNoAdmin[i].cpuUsPerRequest)) - 1;
  return [
    `admin API at ${out.storeSize.toLocaleString('en')} cards (medians of ${out.get.length} rounds; ${out.loadGenerator})`,
    `  /_cards/cards, 100-card page   ${rps(out.cardsPage)} req/s, p99 ${med(out.cardsPage, 'p99')} ms`,
    `  /_cards/identities/{identity}  ${rps(out.history)} req/s, p99 ${med(out.history, 'p99')} ms`,
    `  /_cards/export                 ${median(out.exportSeconds).toFixed(2)} s for ${out.exportLines.toLocaleString('en')} cards`,
    `  page first view (Chromium)     ${out.pageFirstViewMs === undefined ? 'skipped: no /usr/bin/chromium' : `${Math.round(out.pageFirstViewMs)} ms`}`,
    `  GET /card/v5/:id with admin    ${rps(out.get)} req/s`,
    `  GET /card/v5/:id --no-admin    ${rps(out.getNoAdmin)} req/s (admin API and journal cost ${(cost * 100).toFixed(1)}%)`,
    `  server CPU per get             ${Math.round(us(out.get))} µs with admin, ${Math.round(us(out.getNoAdmin))} µs without (${(cpuCost * 100).toFixed(1)}%, median of the rounds' ratios)`,
  ].join('\n');
}
