// The one table `npm run bench` prints: each measure, its figure (median over rounds), its
// target, and whether it was met (and by how much it was missed).
const int = (n) => Math.round(n).toLocaleString('en-US');
const fixed = (n, digits = 1) => n.toFixed(digits);
const pct = (n) => `${Math.round(n * 100)}%`;
/** A shortfall in percent, with a decimal when it is under 10%. */
const short = (n) => `${n < 0.1 ? (n * 100).toFixed(1) : Math.round(n * 100)}%`;

/** "met", or how far from the target the figure is. */
function verdict(met, shortBy) {
  return met ? 'met' : `MISSED by ${shortBy}`;
}

const atLeast = (value, target, format = (x) => x) =>
  verdict(value >= target, `${format(target - value)} (${short(1 - value / target)} short)`);
const atMost = (value, target, format = (x) => x) =>
  verdict(value <= target, `${format(value - target)} (${short(value / target - 1)} over)`);
const points = (x) => `${(x * 100).toFixed(1)} points`;

export function tableRows(result) {
  const s = result.summary;
  const { storeSize, smallStore, seedCount } = result.config;
  const n = int(storeSize);
  return [
    {
      measure: 'create, 16 connections, empty store',
      result: `${int(s.createEmpty)} req/s = ${pct(s.createEmptyOfBound)} of the crypto bound (${int(s.createBound)}/s)`,
      target: '≥ 40% of the bound',
      verdict: atLeast(s.createEmptyOfBound, 0.4, points),
    },
    {
      measure: `create, 16 connections, ${n} stored`,
      result: `${int(s.createBig)} req/s = ${pct(s.createBigOfEmpty)} of empty`,
      target: '≥ 80% of empty',
      verdict: atLeast(s.createBigOfEmpty, 0.8, points),
    },
    {
      measure: `create, one client, median latency, ${n} vs ${int(smallStore)} stored`,
      result: `${fixed(s.sequentialBigMs, 2)} ms vs ${fixed(s.sequentialSmallMs, 2)} ms = ${fixed(s.sequentialRatio, 2)}×`,
      target: '≤ 2×',
      verdict: atMost(s.sequentialRatio, 2, (x) => `${fixed(x, 2)}×`),
    },
    {
      measure: `get by id, ${n} stored`,
      result: `${int(s.get)} req/s, p99 ${s.getP99} ms`,
      target: '≥ 10,000 req/s, p99 < 10 ms',
      verdict:
        s.get >= 10_000 && s.getP99 < 10
          ? 'met'
          : `MISSED: ${s.get < 10_000 ? `${short(1 - s.get / 10_000)} short` : ''}${s.getP99 >= 10 ? ` p99 ${s.getP99} ms` : ''}`,
    },
    {
      measure: `search one identity, ${n} stored`,
      result: `${int(s.searchOne)} req/s, p99 ${s.searchOneP99} ms`,
      target: '≥ 10,000 req/s, p99 < 10 ms',
      verdict:
        s.searchOne >= 10_000 && s.searchOneP99 < 10
          ? 'met'
          : `MISSED: ${s.searchOne < 10_000 ? `${short(1 - s.searchOne / 10_000)} short` : ''}${s.searchOneP99 >= 10 ? ` p99 ${s.searchOneP99} ms` : ''}`,
    },
    {
      measure: `search 50 identities, ${n} stored`,
      result: `${int(s.searchFifty)} req/s, p99 ${s.searchFiftyP99} ms`,
      target: '(reported)',
      verdict: '',
    },
    {
      measure: `start-up with ${n} cards: listening, alone`,
      result: `${int(s.startup.A)} ms${s.startup.B === undefined ? '' : ` (B_ROOT's build: ${int(s.startup.B)} ms)`}`,
      target: '≤ 1,000 ms',
      verdict: atMost(s.startup.A, 1000, (x) => `${int(x)} ms`),
    },
    {
      measure: `start-up with ${n} cards: listening, beside two servers`,
      result: `${int(s.listeningMs)} ms`,
      target: '(reported)',
      verdict: '',
    },
    {
      measure: `resident memory with ${n} cards`,
      result: `${int(s.rssMB)} MB after start-up (peak ${int(s.peakMB)} MB over the run)`,
      target: '< 400 MB',
      verdict: atMost(s.rssMB, 400, (x) => `${int(x)} MB`),
    },
    {
      measure: '`cards --version`',
      result: `${int(s.versionMs)} ms`,
      target: '< 150 ms',
      verdict: atMost(s.versionMs, 150, (x) => `${int(x)} ms`),
    },
    {
      measure: `\`cards seed\` of ${int(seedCount)} cards`,
      result:
        `${fixed(s.seedSeconds)} s` +
        (s.seedFailures > 0 ? ` (${s.seedFailures} of ${result.rounds.length} runs failed)` : ''),
      target:
        seedCount === 10_000
          ? '< 15 s'
          : `< ${fixed((15 * seedCount) / 10_000)} s (15 s per 10,000)`,
      verdict: atMost(s.seedSeconds, (15 * seedCount) / 10_000, (x) => `${fixed(x)} s`),
    },
    {
      measure: `vs json-server POST, empty store (cards create at ${n})`,
      result: `json-server ${int(s.jsonServerEmpty)} req/s; cards ${fixed(s.vsJsonServerEmpty)}×`,
      target: '≥ 5×',
      verdict: atLeast(s.vsJsonServerEmpty, 5, (x) => `${fixed(x)}×`),
    },
    {
      measure: `vs json-server POST, ${n} records`,
      result: `json-server ${fixed(s.jsonServerBig, 2)} req/s; cards ${int(s.vsJsonServerBig)}×`,
      target: '≥ 100×',
      verdict: atLeast(s.vsJsonServerBig, 100, (x) => `${int(x)}×`),
    },
  ];
}

/** The table as aligned text (a Markdown table, so it pastes into docs/benchmarks.md). */
export function formatTable(result) {
  const rows = tableRows(result);
  const head = {
    measure: 'measure',
    result: 'result (median of rounds)',
    target: 'target',
    verdict: 'verdict',
  };
  const keys = Object.keys(head);
  const width = Object.fromEntries(
    keys.map((k) => [k, Math.max(...[head, ...rows].map((r) => r[k].length))]),
  );
  const line = (r) => `| ${keys.map((k) => r[k].padEnd(width[k])).join(' | ')} |`;
  const rule = `| ${keys.map((k) => '-'.repeat(width[k])).join(' | ')} |`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}
