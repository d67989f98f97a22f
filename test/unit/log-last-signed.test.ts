/**
 * The log writer against the record of the last checkpoint its key signed (log-epochs.ts): a log
 * behind it, or a different tree of its size, is refused (LOG_ROLLED_BACK); the record keeps the
 * last checkpoint of every log (each origin and key) apart, so a log of another origin or key
 * signed meanwhile never lets one be forked later; a record behind the log (a crash between the
 * two writes) is caught up on open; `newLog` begins the epoch after every one known.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { MemoryTileStore, type TileTransaction } from '../../src/log/tile-store.js';
import { entry } from '../helpers/log-kit.js';

const origin = 'example.com/record';

/** Memory tiles whose record a test sets apart from the log, as a kept file would be. */
class RecordTiles extends MemoryTileStore {
  record: string | undefined;
  override update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
    return super.update((tx) =>
      fn({
        ...tx,
        lastSigned: async () => this.record,
        writeCheckpoint: async (signed, epoch, record) => {
          await tx.writeCheckpoint(signed, epoch, record);
          this.record = record;
        },
      }),
    );
  }
}

async function grown(key = generatePrivateKey(), n = 5): Promise<RecordTiles> {
  const tiles = new RecordTiles();
  const writer = await LogWriter.open({ tiles, origin, key });
  for (let i = 0; i < n; i++) await writer.append([entry(i)]);
  return tiles;
}

test('a different tree of the size the key signed is refused', async () => {
  const key = generatePrivateKey();
  const tiles = await grown(key);
  const missing = new RecordTiles();
  missing.record = tiles.record;
  await assert.rejects(
    LogWriter.open({ tiles: missing, origin, key }),
    (err: Error & { code?: string }) =>
      err.code === 'LOG_ROLLED_BACK' &&
      /memory holds no log, but its key signed size 5/.test(err.message),
  );
  assert.equal(await missing.readCheckpoint(), undefined, 'nothing signed');
  // Same key, same size 5, other entries: the record names the first tree.
  const forked = new RecordTiles();
  const writer = await LogWriter.open({ tiles: forked, origin, key });
  for (let i = 0; i < 5; i++) await writer.append([entry(100 + i)]);
  forked.record = tiles.record;
  await assert.rejects(
    LogWriter.open({ tiles: forked, origin, key }),
    (err: Error & { code?: string }) =>
      err.code === 'LOG_ROLLED_BACK' && /holds a different tree, size 5 of/.test(err.message),
  );
});

test("another key's record is not this key's: the log opens, and the record keeps both", async () => {
  const otherKey = generatePrivateKey();
  const record = (await grown(otherKey, 3)).record;
  const key = generatePrivateKey();
  const fresh = new RecordTiles();
  fresh.record = record;
  const writer = await LogWriter.open({ tiles: fresh, origin, key });
  assert.equal(writer.size, 0);
  assert.ok(fresh.record?.startsWith(record ?? ''), "the other key's checkpoint stays");
  assert.match(fresh.record ?? '', new RegExp(`\\n${origin}\\n0\\n`), 'caught up to the open log');
  // The other key back, over an empty log: what it signed is still known.
  const emptied = new RecordTiles();
  emptied.record = fresh.record;
  await assert.rejects(
    LogWriter.open({ tiles: emptied, origin, key: otherKey }),
    (err: Error & { code?: string }) =>
      err.code === 'LOG_ROLLED_BACK' && /its key signed size 3 of/.test(err.message),
  );
});

test('a log of another origin signed meanwhile does not let the first be forked', async () => {
  const key = generatePrivateKey();
  const tiles = await grown(key, 5);
  // The log lost; the server started once under another origin (its own log, of 2 entries).
  const detour = new RecordTiles();
  detour.record = tiles.record;
  const other = await LogWriter.open({ tiles: detour, origin: 'example.com/other', key });
  for (let i = 0; i < 2; i++) await other.append([entry(200 + i)]);
  assert.ok(detour.record?.startsWith(`${origin}\n5\n`), detour.record);
  assert.match(detour.record ?? '', /\nexample\.com\/other\n2\n/);
  // Then the first origin again, over no log: refused, not a second tree of its size 5.
  const lost = new RecordTiles();
  lost.record = detour.record;
  await assert.rejects(
    LogWriter.open({ tiles: lost, origin, key }),
    (err: Error & { code?: string }) =>
      err.code === 'LOG_ROLLED_BACK' &&
      /holds no log, but its key signed size 5 of example\.com\/record /.test(err.message),
  );
  assert.equal(await lost.readCheckpoint(), undefined, 'nothing signed');
  // --new-log goes past the epochs of this origin; the other origin's entry stays.
  const renewed = await LogWriter.open({ tiles: lost, origin, key, newLog: true });
  assert.equal(renewed.origin, `${origin}/reset-1`);
  assert.match(lost.record ?? '', /^example\.com\/other\n2\n/);
  assert.match(lost.record ?? '', new RegExp(`\\n${origin}/reset-1\\n0\\n`));
  assert.doesNotMatch(lost.record ?? '', new RegExp(`(^|\\n)${origin}\\n5\\n`), 'replaced');
});

test('a record behind the log is caught up on open; newLog begins the next epoch', async () => {
  const key = generatePrivateKey();
  const tiles = new RecordTiles();
  const writer = await LogWriter.open({ tiles, origin, key });
  await writer.append([entry(0)]);
  const behind = tiles.record;
  await writer.append([entry(1), entry(2)]);
  tiles.record = behind; // as a crash after the checkpoint's write and before the record's
  const reopened = await LogWriter.open({ tiles, origin, key });
  assert.equal(reopened.size, 3);
  assert.ok(tiles.record?.startsWith(`${origin}\n3\n`), tiles.record);

  const renewed = await LogWriter.open({ tiles, origin, key, newLog: true });
  assert.equal(renewed.origin, `${origin}/reset-1`);
  assert.equal(renewed.size, 0);
  assert.ok(tiles.record?.startsWith(`${origin}/reset-1\n0\n`), tiles.record);
  const again = await LogWriter.open({ tiles, origin, key, newLog: true });
  assert.equal(again.origin, `${origin}/reset-2`, 'each --new-log a new origin');
});
