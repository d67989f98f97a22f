// e3kit's backend over HTTP, `cards serve` on a JSON store (brainkey throttle off):
// - Keyknox v1 and v2: pull + push pairs per second, 16 clients each with its own identity (each
//   push names the hash its pull got, as e3kit does; every push is on disk before its answer);
// - brainkeys per second over HTTP against the pairing's own cost measured in this run on this
//   thread (the limit: threads / one transform's time);
// - card get p99, alone and while 16 clients keep the Pythia pool busy with brainkeys.
// `npm run build && node bench/e3kit.mjs [--seconds N]`; not part of `npm test`.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { brainkeyTweak, derivePythiaKeys, transformBrainkey } from '../dist/src/crypto/pythia.js';
import { parsePrivateKey } from '../dist/src/crypto/keys.js';
import { mintToken } from '../dist/src/crypto/tokens.js';
import { loadPythia } from '../dist/src/pythia/load.js';
import { availableParallelism } from 'node:os';
import { linkSelf } from './lib/link-self.mjs';

linkSelf(); // lib/cards.mjs imports the project by its package name
const { makeCard } = await import('./lib/cards.mjs');
const { startCards } = await import('./lib/servers.mjs');
const { removeTempDirs, tempDir } = await import('./lib/stores.mjs');

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const seconds = Number(values.seconds);
const CLIENTS = 16;
/** The server's default Pythia threads (serve --pythia-threads). */
const poolThreads = Math.max(1, availableParallelism() - 1);

const p = await loadPythia();
const { blindedPassword } = p.blind('password');
const blinded = Buffer.from(blindedPassword).toString('base64');

// The pairing's own cost, on this thread, before the server starts.
const keys = derivePythiaKeys(p, new Uint8Array(32).fill(1), 1);
const tweak = brainkeyTweak('app', 'alice');
const times = [];
for (const end = performance.now() + 2000; performance.now() < end;) {
  const t = performance.now();
  transformBrainkey(p, keys.brainkey, blindedPassword, tweak);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const pairingMs = times[times.length >> 1];

const dir = tempDir('cards-bench-e3kit-');
const server = await startCards(dir, [
  '--compat',
  'virgil',
  '--quiet',
  '--no-log',
  '--pythia-throttle',
  'off',
]);
const appKey = parsePrivateKey(readFileSync(server.appKey, 'utf8'));
const token = (identity) =>
  mintToken({
    key: appKey,
    identity,
    now: Date.now(),
    ttlSeconds: 3600,
    format: 'stock',
    appId: 'bench',
  });
const ready = await (async () => {
  for (let i = 0; i < 100; i++) {
    const info = await (await fetch(`${server.url}/_cards/info`)).json();
    if (info.pythia) return info.pythia.proof_keys.length > 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
})();
if (!ready) throw new Error('Pythia did not become ready');

async function call(method, path, auth, body, headers = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Virgil ${auth}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { hash: response.headers.get('virgil-keyknox-hash'), text };
}

/** Runs `step` in CLIENTS loops for the bench's seconds; steps per second. */
async function rate(step, clients = CLIENTS) {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const auth = await token(`client-${c}-${Math.random()}`);
      const state = {};
      while (performance.now() < end) {
        await step(auth, state);
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - start);
}

const value = Buffer.alloc(1024, 7).toString('base64');
const v1 = await rate(async (auth) => {
  const pulled = await call('GET', '/keyknox/v1', auth);
  await call(
    'PUT',
    '/keyknox/v1',
    auth,
    { meta: value, value },
    {
      'virgil-keyknox-previous-hash': pulled.hash,
    },
  );
});
const at = { root: 'group-sessions', path: 'bench', key: '1' };
const v2 = await rate(async (auth) => {
  const pulled = await call('POST', '/keyknox/v2/pull', auth, at);
  await call(
    'POST',
    '/keyknox/v2/push',
    auth,
    { ...at, identities: [], meta: value, value },
    {
      'virgil-keyknox-previous-hash': pulled.hash,
    },
  );
});

// Card gets: one card, its id fetched by 4 clients, alone and beside brainkeys.
const owner = await token('card-owner');
const card = makeCard('card-owner');
await call('POST', '/card/v5', owner, JSON.parse(card.body));
async function getP99(ms) {
  const lat = [];
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await call('GET', `/card/v5/${card.id}`, owner);
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return lat[Math.floor(lat.length * 0.99)];
}
const alone = await getP99(seconds * 1000);
let brainkeys = 0;
const busy = rate(async (auth) => {
  await call('POST', '/pythia/v1/brainkey', auth, { blinded_password: blinded });
  brainkeys++;
});
const beside = await getP99(seconds * 1000);
const brainkeyRate = await busy;
await server.stop();
removeTempDirs();

const rows = [
  ['Keyknox v1 pull + push (JSON, 1 KiB)', `${v1.toFixed(0)}/s`, `${CLIENTS} clients`],
  ['Keyknox v2 pull + push (JSON, 1 KiB)', `${v2.toFixed(0)}/s`, `${CLIENTS} clients`],
  [
    'brainkeys over HTTP',
    `${brainkeyRate.toFixed(1)}/s`,
    `limit ${(poolThreads * (1000 / pairingMs)).toFixed(1)}/s (${poolThreads} × ${pairingMs.toFixed(1)} ms)`,
  ],
  ['card get p99, alone', `${alone.toFixed(1)} ms`, ''],
  ['card get p99, brainkeys running', `${beside.toFixed(1)} ms`, `${brainkeys} brainkeys`],
];
for (const row of rows)
  console.log(row.map((c, i) => (i === 0 ? c.padEnd(40) : c.padStart(24))).join(''));
