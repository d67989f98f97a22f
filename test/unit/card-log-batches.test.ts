/**
 * How often the registry's log integrates (card-log.ts): at most one batch per interval under
 * load, whatever the disk's speed, since each batch writes its partial tiles and a checkpoint;
 * a backlog (full batches) goes on at once.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64 } from '../../src/core/encoding.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { MemoryTileStore, type TileTransaction } from '../../src/log/tile-store.js';
import { CardLog } from '../../src/registry/card-log.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';

const publicKey = encodeBase64(generatePrivateKey().publicKey.spki);

async function insertCard(store: MemoryStore, i: number): Promise<void> {
  const bytes = new TextEncoder().encode(
    `{"identity":"user-${i}@example.com","public_key":"${publicKey}","version":"5.0","created_at":${1_700_000_000 + i}}`,
  );
  await store.insert({
    id: cardIdOf(bytes),
    identity: `user-${i}@example.com`,
    content_snapshot: encodeBase64(bytes),
    signatures: [],
  });
}

/** Tiles in memory whose writes take `writeMs` (a disk's sync), counting checkpoints. */
class SlowTiles extends MemoryTileStore {
  checkpoints = 0;
  constructor(readonly writeMs: number) {
    super();
  }
  override update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return super.update((tx) =>
      fn({
        ...tx,
        write: async (tiles) => {
          await sleep(this.writeMs);
          await tx.write(tiles);
        },
        writeCheckpoint: async (signed, epoch, record) => {
          this.checkpoints++;
          await tx.writeCheckpoint(signed, epoch, record);
        },
      }),
    );
  }
}

async function openLog(tiles: SlowTiles, intervalMs: number, batchMax?: number) {
  const store = new MemoryStore();
  const writer = await LogWriter.open({
    tiles,
    origin: 'example.com/batches',
    key: generatePrivateKey(),
  });
  const log = await CardLog.open({ store, writer, intervalMs, ...(batchMax && { batchMax }) });
  return { store, log };
}

test('under a steady load the log integrates once per interval, not once per disk sync', async () => {
  const tiles = new SlowTiles(20);
  const intervalMs = 250;
  const { store, log } = await openLog(tiles, intervalMs);
  try {
    const before = tiles.checkpoints;
    const started = Date.now();
    let inserted = 0;
    while (Date.now() - started < 1500) {
      await insertCard(store, inserted++);
      log.notify();
      await sleep(3);
    }
    const elapsed = Date.now() - started;
    const batches = tiles.checkpoints - before;
    // One batch at once (the log was idle), then one per interval; a batch after each (the bug)
    // made one per 20 ms write, about 60 here.
    assert.ok(
      batches <= Math.ceil(elapsed / intervalMs) + 2,
      `${batches} batches in ${elapsed} ms with an interval of ${intervalMs} ms`,
    );
    await log.integrate();
    assert.equal(log.size, inserted);
  } finally {
    await log.close();
  }
});

test('a backlog is integrated in full batches one after another, without waiting', async () => {
  const tiles = new SlowTiles(1);
  const { store, log } = await openLog(tiles, 60_000, 10);
  try {
    for (let i = 0; i < 95; i++) await insertCard(store, i);
    const before = tiles.checkpoints;
    log.notify();
    for (let waited = 0; log.size < 95 && waited < 10_000; waited += 10) await sleep(10);
    assert.equal(log.size, 95);
    assert.equal(tiles.checkpoints - before, 10);
  } finally {
    await log.close();
  }
});
