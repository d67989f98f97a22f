// Pythia cost: one transform (a brainkey's whole server work), one transform + proof (a
// /pythia/v1/password with include_proof), both on this thread with the vendor's WebAssembly,
// then the worker pool's throughput at 1 and 2 threads and the event loop's timer lag while
// the pool is saturated (what a card read waiting behind brainkeys would see).
// `npm run build && node bench/pythia.mjs [--seconds N]`; not part of `npm test`.
import { parseArgs } from 'node:util';
import {
  brainkeyTweak,
  derivePythiaKeys,
  transformBrainkey,
  transformPassword,
} from '../dist/src/crypto/pythia.js';
import { loadPythia } from '../dist/src/pythia/load.js';
import { PythiaPool } from '../dist/src/pythia/pool.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const seconds = Number(values.seconds);
const p = await loadPythia();
const keys = derivePythiaKeys(p, new Uint8Array(32).fill(1), 1);
const { blindedPassword } = p.blind('password');
const tweak = brainkeyTweak('app', 'alice');
const salt = new Uint8Array(32).fill(2);

function timeEach(fn, ms) {
  const times = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1], n: times.length };
}

const transform = timeEach(
  () => transformBrainkey(p, keys.brainkey, blindedPassword, tweak),
  seconds * 1000,
);
const proved = timeEach(
  () => transformPassword(p, keys.passwords[0], blindedPassword, salt, true),
  seconds * 1000,
);
const rows = [
  [
    'transform (brainkey), this thread',
    `${transform.median.toFixed(1)} ms`,
    `${(1000 / transform.median).toFixed(1)}/s`,
  ],
  [
    'transform + proof (password), this thread',
    `${proved.median.toFixed(1)} ms`,
    `${(1000 / proved.median).toFixed(1)}/s`,
  ],
];

for (const threads of [1, 2]) {
  const pool = await PythiaPool.open({ threads });
  const lags = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - 1);
    last = now;
  }, 1);
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: threads * 4 }, async () => {
      while (performance.now() < end) {
        await pool.brainkey(keys.brainkey, blindedPassword, tweak);
        done++;
      }
    }),
  );
  const elapsed = performance.now() - start;
  clearInterval(timer);
  lags.sort((a, b) => a - b);
  rows.push([
    `pool, ${threads} thread${threads > 1 ? 's' : ''}: brainkeys`,
    `${((done * 1000) / elapsed).toFixed(1)}/s`,
    `timer lag p99 ${lags[Math.floor(lags.length * 0.99)].toFixed(1)} ms`,
  ]);
  await pool.close();
}
for (const row of rows)
  console.log(row.map((c, i) => (i === 0 ? c.padEnd(44) : c.padStart(22))).join(''));
