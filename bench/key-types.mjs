// Verify rate of a card's self signature per key type, over the stock-made cards of
// fixtures/stock-client-key-types.json, through the server's own path (readCardKey +
// verify: node:crypto for Ed25519, P-256 and RSA; @noble/post-quantum for Falcon, loaded on
// first use). Then the cost of a refusal through the registry's rule (checkSelfSignature): a
// tampered Ed25519 signature, an RSA-1024 key, and a hostile RSA-3072 key whose public
// exponent has 3,060 bits, beside what verifying with that key costs node:crypto when nothing
// refuses it first. `node bench/key-types.mjs` after `npm run build`; median of 3.
import { constants, createPublicKey, createVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildSnapshot } from '../dist/src/core/snapshot.js';
import { readCardKey } from '../dist/src/crypto/card-key.js';
import { checkSelfSignature } from '../dist/src/registry/self-signature.js';
import { bigExponent, rsaModulus, rsaSpki } from '../dist/test/helpers/rsa-keys.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/stock-client-key-types.json', import.meta.url), 'utf8'),
);
const b64 = (s) => new Uint8Array(Buffer.from(s, 'base64'));

async function opsPerSecond(fn, minMs = 600) {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (let i = 0; i < 10; i++) await fn();
    n += 10;
  }
  return (n * 1000) / (performance.now() - start);
}

async function median(fn) {
  const runs = [];
  for (let r = 0; r < 3; r++) runs.push(await opsPerSecond(fn));
  return runs.sort((a, b) => a - b)[1];
}

const row = (name, ops, note) =>
  `${name.padEnd(34)}${ops.toFixed(0).padStart(12)}${(1000 / ops).toFixed(3).padStart(12)}  ${note}`;

console.log('key type                          verify ops/s   ms/verify  verifier');
for (const { key_type, card } of fixture.cards) {
  const snapshot = b64(card.content_snapshot);
  const publicKey = b64(JSON.parse(Buffer.from(snapshot).toString('utf8')).public_key);
  const signature = b64(card.signatures[0].signature);
  const key = readCardKey(publicKey);
  const empty = new Uint8Array(0);
  if (!(await key.verify(signature, snapshot, empty)))
    throw new Error(`${key_type} does not verify`);
  const ops = await median(() => key.verify(signature, snapshot, empty));
  const verifier =
    key.type === 'curve25519-round5-ed25519-falcon'
      ? 'node:crypto + @noble/post-quantum'
      : 'node:crypto';
  console.log(row(key_type, ops, verifier));
}

// Refusals, as the registry makes them (each must throw).
const entry = (signature) => ({
  signer: 'self',
  signature,
  snapshot: new Uint8Array(0),
  raw: { signer: 'self', signature: '' },
});
const refusal = (publicKey, signature) => {
  const snapshot = buildSnapshot({ publicKey, identity: 'x', createdAt: 1700000000 });
  const self = entry(signature);
  return async () => {
    try {
      await checkSelfSignature(snapshot, self);
    } catch {
      return;
    }
    throw new Error('not refused');
  };
};
const ed = fixture.cards.find((c) => c.key_type === 'ED25519');
const edKey = b64(JSON.parse(Buffer.from(b64(ed.card.content_snapshot)).toString()).public_key);
const hostile = rsaSpki(rsaModulus(3072), bigExponent(3060));
// An RSA-3072 signature is 384 bytes (below the modulus: its first byte 0x01).
const sig3072 = new Uint8Array(384).fill(1);
console.log('\nrefusal (registry rule)            refusals/s  ms/refusal  refused as');
const refusals = [
  ['ED25519, tampered signature', refusal(edKey, b64(ed.tampered_signature_base64)), '40021'],
  ['RSA-1024 key', refusal(rsaSpki(rsaModulus(1024), 65537n), sig3072), '40090 at read'],
  ['RSA-3072, 3,060-bit exponent', refusal(hostile, sig3072), '40090 at read'],
];
for (const [name, fn, code] of refusals) console.log(row(name, await median(fn), code));

// What that key would cost if it were verified (node:crypto directly, nothing refusing it).
const nodeKey = createPublicKey({ key: Buffer.from(hostile), format: 'der', type: 'spki' });
const unguarded = () => {
  const verifier = createVerify('sha512');
  verifier.update('x');
  return verifier.verify(
    { key: nodeKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
    Buffer.from(sig3072),
  );
};
console.log(row('(its verification, unguarded)', await median(unguarded), 'node:crypto'));
