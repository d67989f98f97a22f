import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64 } from '../../src/core/encoding.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { MemoryTileStore } from '../../src/log/tile-store.js';
import { parseTlogProof } from '../../src/log/tlog-proof.js';
import { CardLog } from '../../src/registry/card-log.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';

test('a client cycling through 20,000 cards gets every proof from memory the second time', async () => {
  const store = new MemoryStore();
  const ids: string[] = [];
  const key = generatePrivateKey().publicKey.spki;
  for (let i = 0; i < 20_000; i++) {
    const bytes = new TextEncoder().encode(
      `{"identity":"user-${i}@example.com","public_key":"${encodeBase64(key)}","version":"5.0","created_at":${1_700_000_000 + i}}`,
    );
    const id = cardIdOf(bytes);
    ids.push(id);
    await store.insert({
      id,
      identity: `user-${i}@example.com`,
      content_snapshot: encodeBase64(bytes),
      signatures: [],
    });
  }
  const writer = await LogWriter.open({
    tiles: new MemoryTileStore(),
    origin: 'example.com/proof-cache',
    key: generatePrivateKey(),
  });
  const log = await CardLog.open({ store, writer, intervalMs: 60_000 });
  try {
    await log.integrate();
    assert.equal(log.size, 20_000);
    let made = 0;
    const make = writer.proof.bind(writer);
    writer.proof = (index) => {
      made++;
      return make(index);
    };
    const first = [];
    for (const id of ids) first.push(await log.proof(id));
    assert.equal(made, 20_000);
    // The same tree: each proof again, in the same order, is the one already made (an LRU cache
    // bounded below 20,000 would have evicted each just before it was asked again).
    for (const [i, id] of ids.entries()) assert.equal(await log.proof(id), first[i]);
    assert.equal(made, 20_000);
    assert.equal(parseTlogProof(first[12_345] as string).index, 12_345);
  } finally {
    await log.close();
  }
});

test('proofs waiting for the same integration are all answered by it, none left to its timeout', async () => {
  const store = new MemoryStore();
  const key = encodeBase64(generatePrivateKey().publicKey.spki);
  const writer = await LogWriter.open({
    tiles: new MemoryTileStore(),
    origin: 'example.com/proof-waiters',
    key: generatePrivateKey(),
  });
  // A long interval: a proof left waiting would wait two of them (two minutes) before its retry.
  const log = await CardLog.open({ store, writer, intervalMs: 60_000 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const bytes = new TextEncoder().encode(
        `{"identity":"waiter-${i}@example.com","public_key":"${key}","version":"5.0","created_at":${1_700_000_000 + i}}`,
      );
      const id = cardIdOf(bytes);
      ids.push(id);
      await store.insert({
        id,
        identity: `waiter-${i}@example.com`,
        content_snapshot: encodeBase64(bytes),
        signatures: [],
      });
    }
    assert.equal(log.size, 0);
    const proofs = Promise.all(ids.map((id) => log.proof(id)));
    let stuck: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      proofs,
      new Promise<'stuck'>((resolve) => (stuck = setTimeout(() => resolve('stuck'), 10_000))),
    ]);
    clearTimeout(stuck);
    assert.notEqual(answered, 'stuck');
    assert.deepEqual(
      (answered as string[]).map((text) => parseTlogProof(text).index),
      [0, 1, 2, 3],
    );
  } finally {
    await log.close();
  }
});
