// Generates fixtures/stock-falcon-round2.json: Falcon hybrid signatures by the stock crypto
// library (virgil-crypto 5.1.2) over random messages, one whose squared norm ||(s1, s2)||² is
// within the round-3 bound (≤ 34,034,726) and one between it and the round-2 bound the stock
// engine's Falcon uses (< 43,533,782: about 1 signature in 250). The stock library verifies
// both; test/unit/falcon-bound.test.ts holds the project's verifier to that.
//
// Usage (from the repo root, after `npm ci --prefix interop`):
//   node --no-experimental-fetch interop/make-falcon-fixture.mjs
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeyPairType } from 'virgil-crypto';
import { virgilCrypto } from './lib/stock.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outPath = join(resolve(here, '..'), 'fixtures', 'stock-falcon-round2.json');
const q = 12289;
const n = 512;
const ROUND3 = 34034726;
const ROUND2 = 43533782;

/** Big-endian fixed-width values of `bits` bits, `count` of them, from `bytes`. */
function unpack(bytes, bits, count, signed) {
  const out = [];
  let acc = 0;
  let have = 0;
  let at = 0;
  while (out.length < count) {
    while (have < bits) {
      acc = ((acc << 8) | bytes[at++]) & 0xffffff;
      have += 8;
    }
    have -= bits;
    let v = (acc >>> have) & ((1 << bits) - 1);
    if (signed && v & (1 << (bits - 1))) v -= 1 << bits;
    out.push(v);
  }
  return out;
}

function squaredNorm(falconKey, falconSig, digest) {
  const h = unpack(falconKey.subarray(1), 14, n, false);
  const s2 = unpack(falconSig.subarray(41), 12, n, true);
  const stream = createHash('shake256', { outputLength: 4096 })
    .update(falconSig.subarray(1, 41))
    .update(digest)
    .digest();
  const c = [];
  for (let at = 0; c.length < n; at += 2) {
    const t = (stream[at] << 8) | stream[at + 1];
    if (t < 5 * q) c.push(t % q);
  }
  const product = new Array(n).fill(0);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      if (i + j < n) product[i + j] += s2[i] * h[j];
      else product[i + j - n] -= s2[i] * h[j];
  let norm = 0;
  for (let k = 0; k < n; k++) {
    let s1 = (((c[k] - product[k]) % q) + q) % q;
    if (s1 > q >> 1) s1 -= q;
    norm += s1 * s1 + s2[k] * s2[k];
  }
  return norm;
}

const keys = virgilCrypto.generateKeys(KeyPairType.CURVE25519_ROUND5_ED25519_FALCON);
const spki = Buffer.from(virgilCrypto.exportPublicKey(keys.publicKey));
// The raw Falcon-512 key (header 0x09, 897 bytes) is the last part of the compound key.
const falconKey = spki.subarray(spki.length - 897);
const found = {};
for (let i = 0; i < 20000 && !(found.round3 && found.round2); i++) {
  const message = Buffer.from(Array.from({ length: 100 }, () => Math.floor(Math.random() * 256)));
  const signature = Buffer.from(
    virgilCrypto.calculateSignature(
      { value: message.toString('base64'), encoding: 'base64' },
      keys.privateKey,
    ),
  );
  // The CT-format Falcon signature (809 bytes) is the last part of the hybrid signature.
  const falconSig = signature.subarray(signature.length - 809);
  const norm = squaredNorm(falconKey, falconSig, createHash('sha512').update(message).digest());
  const which = norm <= ROUND3 ? 'round3' : norm < ROUND2 ? 'round2' : undefined;
  if (!which || found[which]) continue;
  if (!virgilCrypto.verifySignature(message, signature, keys.publicKey))
    throw new Error('the stock library refuses its own signature');
  found[which] = {
    message: message.toString('base64'),
    signature: signature.toString('base64'),
    norm,
  };
}
if (!found.round3 || !found.round2) throw new Error('no signature of each kind in 20,000');
writeFileSync(
  outPath,
  `${JSON.stringify({ generator: 'interop/make-falcon-fixture.mjs', 'virgil-crypto': '5.1.2', publicKey: spki.toString('base64'), within: found.round3, between: found.round2 }, null, 2)}\n`,
);
console.log(`wrote ${outPath}: norms ${found.round3.norm} and ${found.round2.norm}`);
