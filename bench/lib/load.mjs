// Load generators. `blast` drives a server with autocannon (keep-alive connections over
// loopback) from requests made before the run; `sequential` is one client sending one request
// at a time and timing each with the high-resolution clock (autocannon's histogram keeps whole
// milliseconds, too coarse for one fdatasync'ed create).
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

/**
 * Runs autocannon for `seconds` (or for `amount` requests) with `connections` connections, each
 * request taken in turn from `pool` ({method, path, headers, body}). Returns requests/s counting
 * 2xx answers only, latency percentiles (ms) and the count of anything that was not a 2xx.
 */
export async function blast(url, pool, { seconds, amount, connections = 16 }) {
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    requests: [
      {
        setupRequest: (req) => {
          const item = pool[next++ % pool.length];
          return {
            ...req,
            method: item.method,
            path: item.path,
            headers: item.headers,
            body: item.body,
          };
        },
      },
    ],
  });
  const ok = result['2xx'];
  return {
    rps: ok / (result.duration || seconds),
    answered: ok,
    seconds: result.duration || seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    sent: next,
    failed: result.non2xx + result.errors + result.timeouts,
    exhausted: next > pool.length,
  };
}

/** Sends `pool` one request at a time on one kept-alive connection; latencies in ms. */
export async function sequential(url, pool) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const latencies = [];
  let failed = 0;
  for (const item of pool) {
    const started = process.hrtime.bigint();
    const status = await new Promise((resolve, reject) => {
      const req = request(
        { agent, hostname, port, method: item.method, path: item.path, headers: item.headers },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(item.body);
    });
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (status < 200 || status > 299) failed++;
  }
  agent.destroy();
  return { latencies, failed };
}

export const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
