/**
 * Property tests (fast-check): a flipped bit in an entry, a proof hash, a checkpoint or a
 * signature fails verification; a rewound or forked log fails consistency verification. Also a
 * small RFC 9162 recursive model checks the tile-backed proofs for every size up to 70.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PrivateKey } from '../../src/crypto/keys.js';
import { signCheckpoint, openCheckpoint } from '../../src/log/checkpoint.js';
import { leafHash, nodeHash, sha256 } from '../../src/log/hash.js';
import { ed25519Signer, ed25519Verifier } from '../../src/log/note-keys.js';
import {
  consistencyProof,
  inclusionProof,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/log/proofs.js';
import { formatTlogProof, verifyTlogProof } from '../../src/log/tlog-proof.js';
import { splitPoint } from '../../src/log/tree.js';
import { buildLog, entry } from '../helpers/log-kit.js';

const SIZES = [1, 2, 3, 7, 8, 9, 100, 255, 256, 257, 1000, 4097];
const log = buildLog(SIZES, 97);
const sizeArb = fc.constantFrom(...SIZES);
const flip = (bytes: Uint8Array, bit: number): Uint8Array => {
  const copy = bytes.slice();
  copy[(bit >> 3) % copy.length]! ^= 1 << (bit & 7);
  return copy;
};

/** RFC 9162 2.1.1 MTH, written from the RFC's definition, for the model check. */
function mth(lo: number, hi: number): Uint8Array {
  if (hi - lo === 1) return leafHash(entry(lo));
  const k = splitPoint(hi - lo);
  return nodeHash(mth(lo, lo + k), mth(lo + k, hi));
}

test('model: tile-backed roots and proofs equal the RFC definition for every size up to 70', async () => {
  const small = buildLog(
    Array.from({ length: 70 }, (_, i) => i + 1),
    5,
  );
  assert.deepEqual(await treeHash(0, small.reader.at(0)), sha256());
  for (let n = 1; n <= 70; n++) {
    const root = mth(0, n);
    assert.deepEqual(await treeHash(n, small.reader.at(n)), root, `root ${n}`);
    const edge = new Map<number, Uint8Array>(); // shared by the proofs of this tree
    for (let m = 0; m < n; m++) {
      const proof = await inclusionProof(m, n, small.reader.at(n));
      assert.deepEqual(await inclusionProof(m, n, small.reader.at(n), edge), proof);
      assert.ok(verifyInclusion(leafHash(entry(m)), m, n, proof, root), `incl ${m}@${n}`);
      assert.ok(!verifyInclusion(leafHash(entry(m + 1)), m, n, proof, root));
    }
    for (let m = 1; m <= n; m++) {
      const proof = await consistencyProof(m, n, small.reader.at(n));
      assert.ok(verifyConsistency(m, n, mth(0, m), root, proof), `cons ${m}→${n}`);
    }
  }
});

test('a flipped bit in the entry or any proof hash, or a wrong index or size, fails inclusion', async () => {
  await fc.assert(
    fc.asyncProperty(sizeArb, fc.nat(), fc.nat(), async (size, i, bit) => {
      const index = i % size;
      const proof = await inclusionProof(index, size, log.reader.at(size));
      const root = log.roots.get(size)!;
      const leaf = leafHash(entry(index));
      assert.ok(verifyInclusion(leaf, index, size, proof, root));
      assert.ok(!verifyInclusion(leafHash(flip(entry(index), bit)), index, size, proof, root));
      assert.ok(!verifyInclusion(leaf, index, size, proof, flip(root, bit)));
      if (proof.length > 0) {
        const at = bit % proof.length;
        const bad = proof.map((h, k) => (k === at ? flip(h, bit >> 5) : h));
        assert.ok(!verifyInclusion(leaf, index, size, bad, root));
        assert.ok(!verifyInclusion(leaf, index, size, proof.slice(0, -1), root));
      }
      if (size > 1) assert.ok(!verifyInclusion(leaf, (index + 1) % size, size, proof, root));
    }),
    { numRuns: 300 },
  );
});

test('a rewound or forked log fails consistency; a flipped proof bit fails it too', async () => {
  await fc.assert(
    fc.asyncProperty(sizeArb, sizeArb, fc.nat(), async (a, b, bit) => {
      const [m, n] = a <= b ? [a, b] : [b, a];
      const proof = await consistencyProof(m, n, log.reader.at(n));
      const [oldRoot, newRoot] = [log.roots.get(m)!, log.roots.get(n)!];
      assert.ok(verifyConsistency(m, n, oldRoot, newRoot, proof));
      // Rewound: the newer checkpoint presented as the old one.
      if (m < n) assert.ok(!verifyConsistency(n, m, newRoot, oldRoot, proof));
      // Forked: the same sizes with a different root on either side.
      assert.ok(!verifyConsistency(m, n, flip(oldRoot, bit), newRoot, proof));
      assert.ok(!verifyConsistency(m, n, oldRoot, flip(newRoot, bit), proof));
      if (proof.length > 0) {
        const at = bit % proof.length;
        const bad = proof.map((h, k) => (k === at ? flip(h, bit >> 5) : h));
        assert.ok(!verifyConsistency(m, n, oldRoot, newRoot, bad));
      }
    }),
    { numRuns: 300 },
  );
});

test('a flipped bit anywhere in a signed checkpoint or tlog proof fails verification', async () => {
  const key = PrivateKey.fromSeed(new Uint8Array(32).fill(9));
  const signer = ed25519Signer('cards.example/log', key);
  const verifier = ed25519Verifier('cards.example/log', key.publicKey.raw);
  const size = 257;
  const signed = signCheckpoint(
    { origin: 'cards.example/log', size, root: log.roots.get(size)!, extensions: [] },
    [signer],
  );
  const index = 200;
  const proofText = formatTlogProof({
    index,
    proof: await inclusionProof(index, size, log.reader.at(size)),
    checkpoint: signed,
  });
  assert.equal(verifyTlogProof(proofText, entry(index), { logKeys: [verifier] }).index, index);
  assert.equal(openCheckpoint(signed, [verifier]).checkpoint.size, size);
  const bytes = new TextEncoder().encode(proofText);
  const decoder = new TextDecoder();
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    const text = decoder.decode(flip(bytes, bit));
    assert.throws(
      () => verifyTlogProof(text, entry(index), { logKeys: [verifier] }),
      (err: { code?: string }) => typeof err.code === 'string' && err.code.startsWith('LOG_'),
      `bit ${bit} of the tlog proof was accepted`,
    );
  }
  assert.throws(() => verifyTlogProof(proofText, entry(index + 1), { logKeys: [verifier] }), {
    code: 'LOG_PROOF_INVALID',
  });
});
