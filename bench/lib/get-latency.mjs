// `node get-latency.mjs URL TOKEN CARD_ID MS`: 4 clients get one card over kept-alive node:http
// sockets for MS milliseconds; prints {n, p50, p99, max} in ms as one JSON line. A process of
// its own, so the latency it sees is the server's, not that of a load generator's event loop
// shared with other clients.
import { Agent, request } from 'node:http';

const [url, token, id, ms] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const { hostname, port } = new URL(url);
const get = () =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname,
        port,
        path: `/card/v5/${id}`,
        headers: { authorization: `Virgil ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`get: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
const latencies = [];
const end = performance.now() + Number(ms);
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      await get();
      latencies.push(performance.now() - started);
    }
  }),
);
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
console.log(
  JSON.stringify({ n: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) }),
);
