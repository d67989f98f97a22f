/**
 * Byte-for-byte agreement with an implementation we did not write: Go's checksum-database
 * packages golang.org/x/mod/sumdb/tlog and sumdb/note (Debian golang-golang-x-mod-dev), driven by
 * test/oracle/tlog-oracle.go. Over one log of 100,000 entries checkpointed at every tile boundary
 * (255, 256, 257, 65,535, 65,536, 65,537) and more: roots, inclusion and consistency proofs,
 * tile contents and paths, and Ed25519 note keys and signatures. Each side also verifies the
 * other's proofs and notes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeBase64, encodeBase64 } from '../../src/core/encoding.js';
import { PrivateKey } from '../../src/crypto/keys.js';
import { formatCheckpoint } from '../../src/log/checkpoint.js';
import { leafHash } from '../../src/log/hash.js';
import { openNote, signNote } from '../../src/log/note.js';
import {
  KEY_TYPE_ED25519,
  ed25519Signer,
  ed25519Verifier,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
} from '../../src/log/note-keys.js';
import {
  consistencyProof,
  inclusionProof,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/log/proofs.js';
import { tilePath } from '../../src/log/tile-path.js';
import { buildGoOracle, buildLog, entry, type TestLog } from '../helpers/log-kit.js';

const b64 = (hashes: readonly Uint8Array[]): string[] => hashes.map(encodeBase64);
const unb64 = (texts: readonly string[]): Uint8Array[] =>
  texts.map((t) => decodeBase64(t) as Uint8Array);

interface Answer {
  roots: string[];
  inclusion: string[][];
  consistency: string[][];
  tiles: string[];
  tilePaths: string[];
  checkInclusion: string[];
  checkConsistency: string[];
  skey: string;
  vkey: string;
  signed: string[];
  opened: string[];
}

// Every size up to 300, every tile boundary, and sizes around and past the second level.
const SIZES = [
  ...Array.from({ length: 300 }, (_, i) => i + 1),
  511,
  512,
  513,
  1000,
  4095,
  4096,
  65_534,
  65_535,
  65_536,
  65_537,
  65_538,
  65_792,
  70_000,
  99_999,
  100_000,
];
const BOUNDARY_INDEXES = [
  0, 1, 254, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, 99_998, 99_999,
];

let oracle: ReturnType<typeof buildGoOracle>;
let log: TestLog;

before(() => {
  oracle = buildGoOracle();
  log = buildLog(SIZES, 777);
});
after(() => oracle?.dispose());

function needGo(t: { skip: (why: string) => void }): boolean {
  if (oracle) return true;
  // CI installs golang-go and golang-golang-x-mod-dev (.ci/run): there a missing oracle fails.
  assert.ok(!process.env.CI, 'CI must have Go and golang.org/x/mod for the oracle test');
  t.skip(
    'go and golang-golang-x-mod-dev are not installed (apt-get install golang-go golang-golang-x-mod-dev)',
  );
  return false;
}

test('roots agree with sumdb/tlog.TreeHash at every checkpoint size, from the edge and from tiles', async (t) => {
  if (!needGo(t)) return;
  const answer = oracle!.run({ entries: 100_000, sizes: SIZES }) as Answer;
  for (const [i, size] of SIZES.entries()) {
    assert.equal(encodeBase64(log.roots.get(size)!), answer.roots[i], `root at ${size}`);
    assert.equal(
      encodeBase64(await treeHash(size, log.reader.at(size))),
      answer.roots[i],
      `tiles at ${size}`,
    );
  }
});

test('inclusion and consistency proofs agree with ProveRecord/ProveTree and pass CheckRecord/CheckTree', async (t) => {
  if (!needGo(t)) return;
  const inclusion: [number, number][] = [];
  const consistency: [number, number][] = [];
  let seed = 7;
  const rand = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  for (const size of SIZES) {
    for (const index of [...BOUNDARY_INDEXES, size - 1, rand(size)]) {
      if (index < size) inclusion.push([index, size]);
    }
  }
  for (let k = 0; k < 400; k++) {
    const a = SIZES[rand(SIZES.length)]!;
    const b = SIZES[rand(SIZES.length)]!;
    consistency.push([Math.min(a, b), Math.max(a, b)]);
  }
  for (const m of [255, 256, 257, 65_535, 65_536, 65_537]) {
    consistency.push([m, 100_000], [1, m], [m - 1, m + 1]);
  }
  // Proofs in one tree share its right edge's hashes, as the server's do (LogWriter.proof).
  const edges = new Map<number, Map<number, Uint8Array>>();
  const edgeOf = (n: number): Map<number, Uint8Array> =>
    edges.get(n) ?? edges.set(n, new Map()).get(n)!;
  const ours = {
    inclusion: await Promise.all(
      inclusion.map(([i, n]) => inclusionProof(i, n, log.reader.at(n), edgeOf(n))),
    ),
    consistency: await Promise.all(
      consistency.map(([m, n]) => consistencyProof(m, n, log.reader.at(n))),
    ),
  };
  const answer = oracle!.run({
    entries: 100_000,
    inclusion,
    consistency,
    checkInclusion: inclusion.map(([index, size], k) => ({
      index,
      size,
      proof: b64(ours.inclusion[k]!),
    })),
    checkConsistency: consistency.map(([old, n], k) => ({
      old,
      new: n,
      proof: b64(ours.consistency[k]!),
    })),
  }) as Answer;
  for (const [k, [index, size]] of inclusion.entries()) {
    assert.deepEqual(b64(ours.inclusion[k]!), answer.inclusion[k], `inclusion ${index}@${size}`);
    assert.equal(answer.checkInclusion[k], 'ok');
    const goProof = unb64(answer.inclusion[k]!);
    assert.ok(verifyInclusion(leafHash(entry(index)), index, size, goProof, log.roots.get(size)!));
  }
  for (const [k, [m, n]] of consistency.entries()) {
    assert.deepEqual(b64(ours.consistency[k]!), answer.consistency[k], `consistency ${m}→${n}`);
    assert.equal(answer.checkConsistency[k], 'ok');
    const goProof = unb64(answer.consistency[k]!);
    assert.ok(verifyConsistency(m, n, log.roots.get(m)!, log.roots.get(n)!, goProof), `${m}→${n}`);
  }
  // 10^5 entries: 17 levels, so at most 17 hashes in any proof.
  assert.ok(Math.max(...ours.inclusion.map((p) => p.length)) <= 17);
});

test('every hash tile agrees with ReadTileData, and tile paths with Tile.Path (height dropped)', (t) => {
  if (!needGo(t)) return;
  const tiles = [...log.tiles.files.entries()].filter(
    ([path]) => !path.startsWith('tile/entries/'),
  );
  const jobTiles = tiles.map(([path]) => {
    const [, level, ...rest] = path.split('/');
    const last = rest.join('/');
    const partial = /\.p\/(\d+)$/.exec(last);
    const index = Number(last.replace(/\.p\/\d+$/, '').replace(/x|\//g, ''));
    return [Number(level), index, partial ? Number(partial[1]) : 256, 100_000];
  });
  const answer = oracle!.run({ entries: 100_000, tiles: jobTiles }) as Answer;
  assert.ok(tiles.length > 700);
  for (const [k, [path, data]] of tiles.entries()) {
    assert.equal(encodeBase64(data), answer.tiles[k], path);
    assert.equal(answer.tilePaths[k]!.replace(/^tile\/8\//, 'tile/'), path);
    const [level, index, width] = jobTiles[k]!;
    assert.equal(tilePath({ level: level!, index: index!, width: width! }), path);
  }
});

test('note keys and Ed25519 note signatures agree with sumdb/note, and each side opens the other', (t) => {
  if (!needGo(t)) return;
  const seed = new Uint8Array(32).map((_, i) => i * 7 + 1);
  const name = 'cards.example/log';
  const key = PrivateKey.fromSeed(seed);
  const texts = [1, 256, 65_536, 100_000].map((size) =>
    formatCheckpoint({ origin: name, size, root: log.roots.get(size)! }),
  );
  const signer = ed25519Signer(name, key);
  const ours = texts.map((text) => signNote(text, [signer]));
  const answer = oracle!.run({
    seed: encodeBase64(seed),
    keyName: name,
    notes: texts,
    openNotes: [...ours, ours[0]!.replace('\n\n', '\n\nx')],
  }) as Answer;
  assert.equal(formatSignerKey(name, KEY_TYPE_ED25519, key), answer.skey);
  assert.equal(formatVerifierKey(name, KEY_TYPE_ED25519, key.publicKey.raw), answer.vkey);
  assert.equal(
    parseSignerKey(answer.skey).privateKey.publicKey.toBase64(),
    key.publicKey.toBase64(),
  );
  assert.deepEqual(ours, answer.signed);
  assert.deepEqual(answer.opened.slice(0, 4), ['ok', 'ok', 'ok', 'ok']);
  assert.notEqual(answer.opened[4], 'ok', 'Go must refuse a tampered note');
  const verifier = ed25519Verifier(answer.vkey);
  for (const signed of answer.signed) assert.equal(openNote(signed, [verifier]).verified.length, 1);
});
