// Verify rate of a card's self signature per key type (issue 13), over the stock-made cards
// of fixtures/stock-client-key-types.json, through the server's own path (readCardKey +
// verify: node:crypto for Ed25519, P-256 and RSA; @noble/post-quantum for Falcon, loaded on
// first use). `node bench/key-types.mjs` after `npm run build`; prints ops/s, median of 3.
import { readFileSync } from 'node:fs';
import { readCardKey } from '../dist/src/crypto/card-key.js';

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

console.log('key type                          verify ops/s   ms/verify  verifier');
for (const { key_type, card } of fixture.cards) {
  const snapshot = b64(card.content_snapshot);
  const publicKey = b64(JSON.parse(Buffer.from(snapshot).toString('utf8')).public_key);
  const signature = b64(card.signatures[0].signature);
  const key = readCardKey(publicKey);
  const empty = new Uint8Array(0);
  if (!(await key.verify(signature, snapshot, empty)))
    throw new Error(`${key_type} does not verify`);
  const runs = [];
  for (let r = 0; r < 3; r++)
    runs.push(await opsPerSecond(() => key.verify(signature, snapshot, empty)));
  const ops = runs.sort((a, b) => a - b)[1];
  const verifier =
    key.type === 'curve25519-round5-ed25519-falcon'
      ? 'node:crypto + @noble/post-quantum'
      : 'node:crypto';
  console.log(
    `${key_type.padEnd(34)}${ops.toFixed(0).padStart(12)}${(1000 / ops).toFixed(3).padStart(12)}  ${verifier}`,
  );
}
