import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64 } from '../../src/core/encoding.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { MemoryTileStore } from '../../src/log/tile-store.js';
import type { TileRef } from '../../src/log/tile-path.js';
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

test("a tile read that began before a reset is not cached as the new log's", async () => {
  const store = new MemoryStore();
  const key = encodeBase64(generatePrivateKey().publicKey.spki);
  for (let i = 0; i < 3; i++) {
    const bytes = new TextEncoder().encode(
      `{"identity":"u-${i}","public_key":"${key}","version":"5.0","created_at":${i}}`,
    );
    await store.insert({
      id: cardIdOf(bytes),
      identity: `u-${i}`,
      content_snapshot: encodeBase64(bytes),
      signatures: [],
    });
  }
  /** Reads wait for `release` while `hold` is set. */
  class GatedTiles extends MemoryTileStore {
    hold: Promise<void> | undefined;
    override async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
      const data = await super.readTile(tile);
      await this.hold;
      return data;
    }
  }
  const tiles = new GatedTiles();
  const writer = await LogWriter.open({
    tiles,
    origin: 'example.com/gated',
    key: generatePrivateKey(),
  });
  const log = await CardLog.open({ store, writer, intervalMs: 60_000 });
  try {
    assert.equal(log.size, 3);
    const path = 'tile/entries/000.p/3';
    let release = (): void => undefined;
    tiles.hold = new Promise((resolve) => (release = resolve));
    const reading = log.readTilePath(path);
    await log.reset(() => store.reset());
    release();
    tiles.hold = undefined;
    assert.equal((await reading).data.byteLength > 0, true, 'the old log answered the old read');
    assert.equal(log.size, 0);
    await assert.rejects(log.readTilePath(path), { code: 'LOG_TILE_NOT_FOUND' });
  } finally {
    await log.close();
  }
});
