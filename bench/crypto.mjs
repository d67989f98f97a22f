// Crypto speed: Ed25519 sign and verify of a card signature (SHA-512 digest, DER wrapper) on
// node:crypto (the server's path) and on @noble/curves (pure JS, the tests' cross-check).
// Reports medians of runs and the single-core crypto bound the create target is measured against.
import { ed25519 } from '@noble/curves/ed25519.js';
import { PublicKey, generatePrivateKey, sha512, signParts, verifyParts } from 'cards/crypto';

const key = generatePrivateKey();
const data = new Uint8Array(200).fill(7);
const der = signParts(key, data);
const digest = sha512(data);
const raw = der.subarray(19);

function opsPerSecond(fn, minMs = 400) {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
  }
  return (n * 1000) / (performance.now() - start);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `noble: false` measures only node:crypto (what the create bound needs), in about 1 s per run. */
export function measureCrypto(runs = 3, { noble = true } = {}) {
  const rows = {
    nodeSign: [],
    nodeVerify: [],
    nobleSign: [],
    nobleVerify: [],
  };
  for (let r = 0; r < runs; r++) {
    rows.nodeSign.push(opsPerSecond(() => signParts(key, data)));
    // The server imports each card's key (SPKI to a KeyObject) before it verifies.
    rows.nodeVerify.push(
      opsPerSecond(() => verifyParts(PublicKey.fromSpki(key.publicKey.spki), der, data)),
    );
    if (!noble) continue;
    rows.nobleSign.push(opsPerSecond(() => ed25519.sign(digest, key.seed), 300));
    rows.nobleVerify.push(
      opsPerSecond(() => ed25519.verify(raw, digest, key.publicKey.raw, { zip215: false }), 300),
    );
  }
  const m = Object.fromEntries(
    Object.entries(rows)
      .filter(([, v]) => v.length > 0)
      .map(([k, v]) => [k, median(v)]),
  );
  // One create costs one key import and self-signature verify, and one service signature.
  m.createBound = 1 / (1 / m.nodeVerify + 1 / m.nodeSign);
  return m;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = measureCrypto();
  console.table(
    Object.fromEntries(
      Object.entries(m).map(([k, v]) => [k, { 'ops/s (median of 3)': Math.round(v) }]),
    ),
  );
}
