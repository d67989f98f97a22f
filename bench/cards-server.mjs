// Measures on `cards serve`: create under load, one client creating one card at a time, get and
// search, start-up time and memory. Each function takes a started server (lib/servers.mjs) and
// requests made beforehand (lib/cards.mjs); none of them makes a card or a token while timing.
import { blast, median, sequential } from './lib/load.mjs';
import { cpuMsOf } from './lib/servers.mjs';

/**
 * Runs `fn` and adds the server's CPU time per answered request (µs): a figure that holds
 * up on a busy machine, where requests/s also depend on what else runs.
 */
export async function withCpu(server, fn) {
  const before = cpuMsOf(server.proc.pid);
  const result = await fn();
  const cpuMs = cpuMsOf(server.proc.pid) - before;
  const answered = result.answered ?? result.rps * result.seconds;
  return { ...result, cpuUsPerRequest: (cpuMs * 1000) / answered };
}

/**
 * A cursor over a pool of create requests: each run continues where the last one stopped, so
 * a card is never sent twice to the same store. `reset()` for a fresh store.
 */
export function createCursor(pool) {
  let at = 0;
  return {
    rest: () => pool.slice(at),
    advance(sent) {
      at += sent;
    },
    reset() {
      at = 0;
    },
  };
}

/**
 * Creates with `connections` clients for `seconds`, after a warm-up of `warm` creates (the pool
 * cycles through its identities, so a warm-up as long as their number has every token verified
 * once and remembered, as it is for clients that keep their token).
 */
export async function measureCreate(server, cursor, { seconds, warm, connections = 16 }) {
  const warmUp = await blast(server.url, cursor.rest(), { amount: warm, connections });
  cursor.advance(warmUp.sent);
  const run = await withCpu(server, () =>
    blast(server.url, cursor.rest(), { seconds, connections }),
  );
  cursor.advance(run.sent);
  if (run.exhausted) throw new Error('create pool exhausted during the run; make it bigger');
  return run;
}

/**
 * One client, one create at a time: the median latency (ms) of `pool` after its first `warm`
 * requests (which also get its few identities' tokens verified and remembered).
 */
export async function measureSequentialCreate(server, pool, { warm }) {
  await sequential(server.url, pool.slice(0, warm));
  const { latencies, failed } = await sequential(server.url, pool.slice(warm));
  return { medianMs: median(latencies), failed };
}

/**
 * Get by id, search one identity and search 50 identities, each for `seconds` with 16
 * connections, over random cards and identities of the store.
 */
export async function measureReads(server, { ids, identities, token, seconds, warmSeconds }) {
  const headers = { authorization: `Service ${token}` };
  const jsonHeaders = { ...headers, 'content-type': 'application/json' };
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  const gets = Array.from({ length: 10_000 }, () => ({
    method: 'GET',
    path: `/card/v5/${pick(ids)}`,
    headers,
  }));
  const searchOne = Array.from({ length: 10_000 }, () => ({
    method: 'POST',
    path: '/card/v5/actions/search',
    headers: jsonHeaders,
    body: JSON.stringify({ identity: pick(identities) }),
  }));
  const searchFifty = Array.from({ length: 2_000 }, () => ({
    method: 'POST',
    path: '/card/v5/actions/search',
    headers: jsonHeaders,
    body: JSON.stringify({ identities: Array.from({ length: 50 }, () => pick(identities)) }),
  }));
  const result = {};
  for (const [name, pool] of [
    ['get', gets],
    ['searchOne', searchOne],
    ['searchFifty', searchFifty],
  ]) {
    await blast(server.url, pool, { seconds: warmSeconds });
    result[name] = await withCpu(server, () => blast(server.url, pool, { seconds }));
  }
  return result;
}
