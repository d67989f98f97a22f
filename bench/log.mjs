// Transparency-log speed at 1,000,000 entries (`npm run build && node bench/log.mjs`; optional
// argument: the entry count). Measures, on the built code and in one process:
//   append   entries/s through appendEntries in batches of 256 (leaf + node hashes, tiles out)
//   start    loadEdge from the stored tiles (what start-up costs; no pass over the entries)
//   proof    inclusion proofs/s for random indexes from tiles (TileHashReader, warm cache)
//            and the first proofs/s from a cold cache; consistency proofs/s
//   tile     tile reads/s by path (the lookup a GET /log/tile/... does), memory storage
// and checks the inclusion proof size at this size (≤ 20 hashes at 10^6, RFC 9162 2.1.3).
import {
  MemoryTiles,
  TileHashReader,
  appendEntries,
  consistencyProof,
  edgeRoot,
  EMPTY_EDGE,
  inclusionProof,
  leafHash,
  loadEdge,
  parseTilePath,
  treeHash,
  verifyInclusion,
} from '../dist/src/log/index.js';

const N = Number(process.argv[2] ?? 1_000_000);
const entry = (i) =>
  new TextEncoder().encode(
    `{"identity":"user-${i}","public_key":"${'A'.repeat(44)}","version":"5.0","created_at":${1_700_000_000 + i}}`,
  );
const fmt = (x) => Math.round(x).toLocaleString('en-US');

const tiles = new MemoryTiles();
let edge = EMPTY_EDGE;
const t0 = performance.now();
for (let i = 0; i < N; i += 256) {
  const batch = [];
  for (let k = i; k < Math.min(N, i + 256); k++) batch.push(entry(k));
  const result = appendEntries(edge, batch);
  tiles.write(result.tiles);
  edge = result.edge;
}
const appendMs = performance.now() - t0;
const root = edgeRoot(edge);

const t1 = performance.now();
const loaded = await loadEdge(N, tiles);
const loadMs = performance.now() - t1;
if (Buffer.compare(edgeRoot(loaded), root) !== 0) throw new Error('reloaded edge has another root');

const reader = new TileHashReader(tiles, { cacheTiles: 8192 });
if (Buffer.compare(await treeHash(N, reader.at(N)), root) !== 0)
  throw new Error('tile root differs');

let seed = 1;
const rand = (n) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
async function rate(fn, ms = 1000) {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}
const cold = new TileHashReader(tiles, { cacheTiles: 1 });
const coldRate = await rate(() => inclusionProof(rand(N), N, cold.at(N)), 500);
// Warm the cache: one proof per level-0 tile, as a server that has run for a while would have.
const tw = performance.now();
for (let i = 0; i < N; i += 256) await inclusionProof(i, N, reader.at(N));
const warmMs = performance.now() - tw;
let maxProof = 0;
const proofRate = await rate(async () => {
  const index = rand(N);
  const proof = await inclusionProof(index, N, reader.at(N));
  maxProof = Math.max(maxProof, proof.length);
});
const idx = rand(N);
const proof = await inclusionProof(idx, N, reader.at(N));
if (!verifyInclusion(leafHash(entry(idx)), idx, N, proof, root)) throw new Error('proof fails');
const verifyRate = await rate(async () =>
  verifyInclusion(leafHash(entry(idx)), idx, N, proof, root),
);
const consRate = await rate(() => consistencyProof(1 + rand(N - 1), N, reader.at(N)));
const all = [...tiles.files.keys()];
const tileRate = await rate(async () => {
  const path = all[rand(all.length)];
  const ref = parseTilePath(path);
  if (!ref || !(await tiles.readTile(ref))) throw new Error(`no tile ${path}`);
});

const rows = [
  ['entries', fmt(N)],
  ['append (entries/s, batches of 256)', fmt((N * 1000) / appendMs)],
  ['append total (s)', (appendMs / 1000).toFixed(2)],
  ['start-up: loadEdge (ms)', loadMs.toFixed(2)],
  ['warming the tile cache, all tiles (ms)', fmt(warmMs)],
  ['inclusion proofs/s (warm tile cache)', fmt(proofRate)],
  ['inclusion proofs/s (cold, 1-tile cache)', fmt(coldRate)],
  ['inclusion verifications/s', fmt(verifyRate)],
  ['consistency proofs/s (warm)', fmt(consRate)],
  ['tile reads/s (parse path + lookup)', fmt(tileRate)],
  ['largest inclusion proof (hashes)', String(maxProof)],
  ['stored tiles and bundles', fmt(all.length)],
];
for (const [k, v] of rows) console.log(`${k.padEnd(42)} ${v}`);
if (maxProof > 20) {
  console.error(`inclusion proof of ${maxProof} hashes at ${N}: the target is ≤ 20`);
  process.exit(1);
}
