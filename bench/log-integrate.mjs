// `node bench/log-integrate.mjs [N]`: the transparency log's own cost per card, without HTTP,
// a client or a store: N synthetic cards (default 50,000) integrated in batches of 1,750 (what
// 500 ms of creates at 3,500/s give the log) exactly as `cards serve` does it: each stored
// snapshot decoded and checked against its id (cardLogEntry), appended (appendEntries), its
// tiles and bundles written durably to a folder (FileTiles), each batch's checkpoint signed and
// replaced. Prints CPU (user, system) and wall time per card, the medians of alternating runs,
// each in a fresh process (no JIT state carried from one run to the next).
//
// B_ROOT=<another checkout, built> compares its build (B) against this one (A) in the same run,
// with the B/A ratios of the paired runs: a change to the log's write path is measured here,
// where two runs of the same build differ by a few per cent, rather than in the create rows of
// log-serve.mjs, where the log is about a tenth of a create and two identical servers' ratios
// spread by ±5%.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/load.mjs';

const BATCH = 1750;
const RUNS = 5;
const here = fileURLToPath(import.meta.url);

/** One run (in a child process): integrates `n` cards with the build under `root`. */
async function integrate(root, n) {
  const log = await import(join(root, 'dist/src/log/index.js'));
  const { LogWriter } = log;
  // The JSON engine owns the file tiles (src/store/json); a build before that exported them here.
  const FileTiles =
    log.FileTiles ?? (await import(join(root, 'dist/src/store/json/file-tiles.js'))).FileTiles;
  const { PrivateKey } = await import(join(root, 'dist/src/crypto/keys.js'));
  const { cardLogEntry } = await import(join(root, 'dist/src/registry/card-log.js'));
  const { cardIdOf } = await import(join(root, 'dist/src/core/card-id.js'));
  const cards = Array.from({ length: n }, (_, seq) => {
    const snapshot = Buffer.from(
      `{"identity":"user-${seq}@example.com","public_key":"${randomBytes(44).toString('base64')}","version":"5.0","created_at":${1_700_000_000 + seq}}`,
    );
    return { seq, id: cardIdOf(snapshot), card: { content_snapshot: snapshot.toString('base64') } };
  });
  const dir = mkdtempSync(join(tmpdir(), 'cards-bench-integrate-'));
  try {
    const writer = await LogWriter.open({
      tiles: new FileTiles(dir),
      origin: 'bench.example/log',
      key: PrivateKey.fromSeed(new Uint8Array(32).fill(7)),
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let from = 0; from < n; from += BATCH) {
      const batch = cards.slice(from, from + BATCH);
      await writer.extend(async () => batch.map((card) => cardLogEntry(card, dir)));
    }
    const wall = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    if (writer.size !== n) throw new Error(`integrated ${writer.size} of ${n}`);
    return { user: user / n, system: system / n, wall: (wall * 1000) / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const [root, n] = process.argv.slice(3);
  process.stdout.write(JSON.stringify(await integrate(root, Number(n))));
} else {
  const n = Number(process.argv[2] ?? 50_000);
  const builds = { A: resolve(here, '../..') };
  if (process.env.B_ROOT) builds.B = resolve(process.env.B_ROOT);
  const got = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++)
    for (const [name, root] of Object.entries(builds)) {
      const out = execFileSync(process.execPath, [here, '--child', root, String(n)]);
      got[name].push(JSON.parse(out.toString()));
    }
  const us = (runs, key) => median(runs.map((r) => r[key])).toFixed(1);
  for (const [name, runs] of Object.entries(got))
    console.log(
      `${name} ${builds[name]}: ${n.toLocaleString('en-US')} cards, per card ` +
        `user ${us(runs, 'user')} µs, system ${us(runs, 'system')} µs, wall ${us(runs, 'wall')} µs`,
    );
  if (got.B) {
    const ratio = (key) => median(got.B.map((b, i) => b[key] / got.A[i][key])).toFixed(2);
    console.log(
      `B/A per card: user ${ratio('user')}, system ${ratio('system')}, wall ${ratio('wall')} (medians of ${RUNS} paired runs)`,
    );
  }
}
