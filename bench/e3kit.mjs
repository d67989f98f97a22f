// e3kit's backend over HTTP, `cards serve` on a JSON store (brainkey throttle off):
// - Keyknox v1 and v2: pulls per second, then pushes per second, 16 clients each with its own
//   identity (each push names the hash the one before it got, as e3kit does; every push is on
//   disk before its answer);
// - brainkeys per second over HTTP against the pairing's own cost measured in this run on this
//   thread (the limit: threads / one transform's time);
// - card get p99 from a client process of its own, alone and while 16 clients keep the Pythia
//   pool busy with brainkeys.
// `npm run bench -- --e3kit` runs it alone (the full run includes it), as does
// `npm run build && node bench/e3kit.mjs [--seconds N]`; not part of `npm test`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { brainkeyTweak, derivePythiaKeys, transformBrainkey } from '../dist/src/crypto/pythia.js';
import { parsePrivateKey } from '../dist/src/crypto/keys.js';
import { mintToken } from '../dist/src/crypto/tokens.js';
import { loadPythia } from '../dist/src/pythia/load.js';
import { availableParallelism } from 'node:os';
import { linkSelf } from './lib/link-self.mjs';

linkSelf(); // lib/cards.mjs imports the project by its package name
const { makeCard } = await import('./lib/cards.mjs');
const { cpuMsOf, startCards } = await import('./lib/servers.mjs');
const { removeTempDirs, tempDir } = await import('./lib/stores.mjs');

const CLIENTS = 16;
/** The server's default Pythia threads (serve --pythia-threads). */
const poolThreads = Math.max(1, availableParallelism() - 1);

/** The e3kit rows: [what, figure, note], `seconds` per measured run. */
export async function runE3kitBench({ seconds = 5 } = {}) {
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

  // node:http on kept-alive sockets: a small part of fetch's cost per request, so on two cores
  // the figure is the server's rather than the load generator's.
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const { hostname, port } = new URL(server.url);

  function call(method, path, auth, body, headers = {}) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          hostname,
          port,
          method,
          path,
          headers: {
            authorization: `Virgil ${auth}`,
            ...(payload !== undefined && { 'content-type': 'application/json' }),
            ...headers,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200 && res.statusCode !== 201)
              reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
            else resolve({ hash: res.headers['virgil-keyknox-hash'], text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * Runs `step(auth, state)` in one loop per client for the bench's seconds; steps per second.
   * `clients`: a count (each gets a new identity's token) or the clients' states (with `auth`).
   */
  async function rate(step, clients = CLIENTS, forSeconds = seconds) {
    const states = Array.isArray(clients)
      ? clients
      : await Promise.all(
          Array.from({ length: clients }, async (_, c) => ({
            auth: await token(`client-${c}-${Math.random()}`),
          })),
        );
    let done = 0;
    const start = performance.now();
    const end = start + forSeconds * 1000;
    await Promise.all(
      states.map(async (state) => {
        while (performance.now() < end) {
          await step(state.auth, state);
          done++;
        }
      }),
    );
    return (done * 1000) / (performance.now() - start);
  }

  // Keyknox: each client first pushes once, then pulls in a loop (pulls/s), then pushes in a
  // loop, each push naming the hash the one before it got back, as e3kit does (pushes/s).
  const value = Buffer.alloc(1024, 7).toString('base64');
  const at = { root: 'group-sessions', path: 'bench', key: '1' };
  const v1Push = (auth, state) =>
    call(
      'PUT',
      '/keyknox/v1',
      auth,
      { meta: value, value },
      state.hash === undefined ? {} : { 'virgil-keyknox-previous-hash': state.hash },
    ).then((r) => (state.hash = r.hash));
  const v2Push = (auth, state) =>
    call(
      'POST',
      '/keyknox/v2/push',
      auth,
      { ...at, identities: [], meta: value, value },
      state.hash === undefined ? {} : { 'virgil-keyknox-previous-hash': state.hash },
    ).then((r) => (state.hash = r.hash));
  const v1 = await keyknoxRates(v1Push, (auth) => call('GET', '/keyknox/v1', auth));
  const v2 = await keyknoxRates(v2Push, (auth) => call('POST', '/keyknox/v2/pull', auth, at));

  /** Pulls/s then pushes/s, CLIENTS identities each with one stored blob or entry. */
  async function keyknoxRates(push, pull) {
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const state = { auth: await token(`keyknox-${c}-${Math.random()}`) };
        await push(state.auth, state);
        return state;
      }),
    );
    // Unmeasured, so the first figure does not carry the JIT's warm-up.
    await rate((_, state) => pull(state.auth), clients, 1);
    return {
      pulls: await measured(() => rate((_, state) => pull(state.auth), clients)),
      pushes: await measured(() => rate((_, state) => push(state.auth, state), clients)),
    };
  }

  /** `run`'s rate and the server's CPU time (every thread) per step, in µs. */
  async function measured(run) {
    const cpuBefore = cpuMsOf(server.proc.pid);
    const started = performance.now();
    const perSecond = await run();
    const steps = (perSecond * (performance.now() - started)) / 1000;
    return { perSecond, cpuMicros: ((cpuMsOf(server.proc.pid) - cpuBefore) * 1000) / steps };
  }

  // Card gets: one card, its id fetched by 4 clients in a process of their own (get-latency.mjs),
  // alone and while this process keeps the Pythia pool busy with brainkeys.
  const owner = await token('card-owner');
  const card = makeCard('card-owner');
  await call('POST', '/card/v5', owner, JSON.parse(card.body));
  const getP99 = async (ms) => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      fileURLToPath(new URL('./lib/get-latency.mjs', import.meta.url)),
      server.url,
      owner,
      card.id,
      String(ms),
    ]);
    return JSON.parse(stdout).p99;
  };
  const alone = await getP99(seconds * 1000);
  let brainkeys = 0;
  const busy = rate(async (auth) => {
    await call('POST', '/pythia/v1/brainkey', auth, { blinded_password: blinded });
    brainkeys++;
  });
  // The brainkeys' clients start first, so the gets meet a pool already busy.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const beside = await getP99(seconds * 1000 - 500);
  const brainkeyRate = await busy;
  agent.destroy();
  await server.stop();

  const rows = [
    ...[
      ['v1 pulls', v1.pulls],
      ['v1 pushes', v1.pushes],
      ['v2 pulls', v2.pulls],
      ['v2 pushes', v2.pushes],
    ].map(([what, m]) => [
      `Keyknox ${what} (JSON, 1 KiB)`,
      `${m.perSecond.toFixed(0)}/s`,
      `server CPU ${m.cpuMicros.toFixed(0)} µs each`,
    ]),
    [
      'brainkeys over HTTP',
      `${brainkeyRate.toFixed(1)}/s`,
      `limit ${(poolThreads * (1000 / pairingMs)).toFixed(1)}/s (${poolThreads} × ${pairingMs.toFixed(1)} ms)`,
    ],
    ['card get p99, alone', `${alone.toFixed(1)} ms`, ''],
    ['card get p99, brainkeys running', `${beside.toFixed(1)} ms`, `${brainkeys} brainkeys`],
  ];
  return rows;
}

export const formatE3kit = (rows) =>
  `e3kit's backend\n${rows
    .map(([what, figure, note]) => `${what.padEnd(40)} ${figure.padStart(12)}  ${note}`)
    .join('\n')}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
  process.on('exit', removeTempDirs);
  console.log(formatE3kit(await runE3kitBench({ seconds: Number(values.seconds) })));
}
