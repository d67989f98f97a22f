// `node bench/large-store.mjs [N]` (default 1,000,000): start-up and peak memory of `cards serve`
// on a store of N cards (target < 10 s and < 2 GB at 10⁶ on the 2-core
// machine), and the cost of rechecking every card's id (item 6), which runs after start-up.
// The store is written in the exact format the server writes (one card per line) with real ids
// (SHA-512 of each snapshot) and placeholder signatures: opening checks relations and, in the
// background, ids, never signatures. Never part of `npm test`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const count = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'cards-large-bench-'));
const db = join(dir, 'cards.json');
const bin = new URL('../bin/cards.js', import.meta.url).pathname;
const signature = Buffer.alloc(83, 7).toString('base64');

try {
  const fd = openSync(db, 'w');
  writeSync(fd, '{\n"format": "cards-store",\n"version": 1,\n"cards": [\n');
  let hashMs = 0;
  const lines = [];
  for (let i = 0; i < count; i++) {
    const snapshot = Buffer.from(
      `{"identity":"user-${i}@example.com","public_key":"MCowBQYDK2VwAyEAqkBlskoZ/EtKFzEV7o6Ld59az88fV3FS6kQlXyGg6Y0=","version":"5.0","created_at":${1_800_000_000 + i}}`,
    );
    const t = performance.now();
    const id = createHash('sha512').update(snapshot).digest().subarray(0, 32).toString('hex');
    hashMs += performance.now() - t;
    lines.push(
      `${i === 0 ? '' : ',\n'}{"id":"${id}","identity":"user-${i}@example.com","content_snapshot":"${snapshot.toString('base64')}","signatures":[{"signer":"self","signature":"${signature}"},{"signer":"service","signature":"${signature}"}]}`,
    );
    if (lines.length === 20_000) writeSync(fd, lines.splice(0).join(''));
  }
  writeSync(fd, `${lines.join('')}\n]\n}\n`);
  closeSync(fd);
  const bytes = statSync(db).size;

  const started = performance.now();
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--quiet', '--db', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listening = await new Promise((resolve, reject) => {
    server.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (/^tokens: /m.test(out)) resolve(performance.now() - started);
    });
    server.once('exit', (code) => reject(new Error(`cards serve exited ${code}: ${out}`)));
  });
  // Peak resident memory so far (VmHWM), then again once the background id check is through.
  const hwm = () =>
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
  const atStart = hwm();
  await new Promise((resolve) => setTimeout(resolve, Math.max(3000, count / 200)));
  const after = hwm();
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  const mb = (n) => `${Math.round(n)} MB`;
  console.log(
    `${count.toLocaleString('en')} cards, store ${mb(bytes / 1e6)}: listening after ${(listening / 1000).toFixed(1)} s (target < 10 s); ` +
      `peak RSS ${mb(atStart)} at start-up, ${mb(after)} after the background id check (target < 2 GB); ` +
      `id recheck (base64 + SHA-512) ${((hashMs * 1000) / count).toFixed(2)} µs/card = ${(hashMs / 1000).toFixed(1)} s of background CPU`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
