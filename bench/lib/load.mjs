// Load generators. `blast` drives a server with autocannon (keep-alive connections over
// loopback) from requests made before the run; `sequential` is one client sending one request
// at a time and timing each with the high-resolution clock (autocannon's histogram keeps whole
// milliseconds, too coarse for one fdatasync'ed create); `wrkGet` drives GETs with wrk, where
// installed, for routes cheaper than autocannon's own cost per request.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

/** Whether Debian's `wrk` is on PATH (`apt-get install wrk`). */
export function hasWrk() {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/**
 * Pins a running process (all its threads) to one CPU, so a load generator pinned to another
 * one never takes the server's core (Linux `taskset`; a no-op where it is missing).
 */
export function pinToCpu(pid, cpu) {
  spawnSync('taskset', ['-a', '-pc', String(cpu), String(pid)], { stdio: 'ignore' });
}

/**
 * GET requests from wrk (C, event-driven: a small fraction of autocannon's CPU per request, so
 * on a 2-core machine the figure is the server's, not the load generator's), each connection
 * taking the next path of `paths` in turn (with `headers`), on CPU `cpu`. Returns requests/s counting 2xx only,
 * p50/p99 in ms, and the count of anything else.
 */
export const wrkGet = (url, paths, { headers = {}, ...options }) =>
  wrkRun(
    url,
    paths.map((path) => ({ method: 'GET', path, headers })),
    options,
  );

const lua = (value) => JSON.stringify(value);

/** wrkGet for any requests ({method, path, headers, body}), taken in turn. */
export async function wrkRun(url, requests, { seconds, connections = 16, cpu = 1 }) {
  const dir = mkdtempSync(join(tmpdir(), 'cards-wrk-'));
  try {
    // The requests formatted once per thread: wrk's own cost per request stays a table lookup.
    const table = requests
      .map(
        ({ method, path, headers = {}, body }) =>
          `wrk.format(${lua(method)}, ${lua(path)}, { ${Object.entries(headers)
            .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
            .join(', ')} }${body === undefined ? '' : `, ${lua(body)}`})`,
      )
      .join(',\n');
    writeFileSync(
      join(dir, 'rotate.lua'),
      `local requests
init = function()
  requests = {
${table}
  }
end
local i = 0
request = function()
  i = i % #requests + 1
  return requests[i]
end
`,
    );
    const args = [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--latency',
      '-s',
      join(dir, 'rotate.lua'),
      url,
    ];
    // Not spawnSync: this process's own connections (kept alive by fetch) must see the server
    // close them meanwhile, or the next fetch reuses a closed one.
    const run = promisify(execFile);
    const { stdout: out } = await run('taskset', ['-c', String(cpu), 'wrk', ...args]).catch(() =>
      run('wrk', args),
    );
    const number = (re) => Number(re.exec(out)?.[1] ?? NaN);
    const ms = (p) => {
      const [, value, unit] = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out) ?? [];
      return Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
    };
    const total = number(/(\d+) requests in/);
    const failed =
      (number(/Non-2xx or 3xx responses: (\d+)/) || 0) +
      (number(/Socket errors: connect (\d+)/) || 0);
    const duration = number(/requests in ([\d.]+)s/);
    return {
      rps: (total - failed) / duration,
      answered: total - failed,
      seconds: duration,
      p50: ms(50),
      p99: ms(99),
      failed,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
