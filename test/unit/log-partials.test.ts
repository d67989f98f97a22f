/**
 * Superseded partial tiles go (tlog-tiles "Partial Tiles": a log MAY delete a partial tile once
 * its full tile is available): a log that grows a card at a time keeps only the partial tiles of
 * its right edge, on files and on PostgreSQL alike, and every tile of every size it signed is
 * still served, a dropped partial from its full tile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { RemoteLog } from '../../src/cli/log-remote.js';
import { EMPTY_EDGE, appendEntries, type LogEdge } from '../../src/log/append.js';
import { FileTiles } from '../../src/store/json/file-tiles.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { tilePath, tilesForSize, type TileRef } from '../../src/log/tile-path.js';
import { MemoryTileStore, type TileStore, type TileTransaction } from '../../src/log/tile-store.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { PostgresTiles } from '../../src/store/postgres/tiles.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { entry } from '../helpers/log-kit.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-partials-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const entries = (from: number, to: number): Uint8Array[] =>
  Array.from({ length: to - from }, (_, k) => entry(from + k));

test('an append names the full tiles and bundle that were partial before it', () => {
  // The edge at each size, grown from the largest one made so far (a log of 65,535 entries is
  // made once, not once per case).
  const edges = new Map<number, LogEdge>([[0, EMPTY_EDGE]]);
  const edgeAt = (size: number): LogEdge => {
    const from = Math.max(...[...edges.keys()].filter((known) => known <= size));
    const edge = appendEntries(edges.get(from) as LogEdge, entries(from, size)).edge;
    edges.set(size, edge);
    return edge;
  };
  const grow = (from: number, to: number): string[] =>
    appendEntries(edgeAt(from), entries(from, to)).superseded.map(tilePath).sort();
  assert.deepEqual(grow(0, 256), []);
  assert.deepEqual(grow(0, 70_000), []);
  assert.deepEqual(grow(255, 256), ['tile/0/000', 'tile/entries/000']);
  assert.deepEqual(grow(256, 257), []);
  assert.deepEqual(grow(256, 512), []);
  assert.deepEqual(grow(300, 600), ['tile/0/001', 'tile/entries/001']);
  assert.deepEqual(grow(65_535, 65_536), ['tile/0/255', 'tile/1/000', 'tile/entries/255']);
  assert.deepEqual(grow(65_536, 65_792), []);
});

/** Grows a log one entry a batch to `size`, checking every tile of every size it signed. */
async function growOneByOne(tiles: TileStore, size: number): Promise<void> {
  const writer = await LogWriter.open({
    tiles,
    origin: 'example.com/partials',
    key: generatePrivateKey(),
  });
  for (let n = 0; n < size; n++) await writer.append([entry(n)]);
  assert.equal(writer.size, size);
  for (const signed of [1, 200, 255, 256, 257, 511, 512, 513, size].filter((s) => s <= size)) {
    const expected = new Map(
      appendEntries(EMPTY_EDGE, entries(0, signed)).tiles.map((t) => [tilePath(t.tile), t.data]),
    );
    for (const tile of tilesForSize(signed))
      assert.deepEqual(await tiles.readTile(tile), expected.get(tilePath(tile)), tilePath(tile));
  }
}

/** The partial tile paths a log of `size` has at its edge, and no others. */
const edgePartials = (size: number): string[] =>
  tilesForSize(size)
    .filter((tile: TileRef) => tile.width < 256)
    .flatMap((tile) =>
      Array.from({ length: tile.width }, (_, w) => tilePath({ ...tile, width: w + 1 })),
    )
    .sort();

// Each grows its own log in its own folder or database: they run at once, their fsyncs and
// round trips overlapping.
describe('a log grown a card at a time keeps only its edge partials', { concurrency: true }, () => {
  test('files: a log grown a card at a time keeps only its edge partials', async () => {
    const tiles = new FileTiles(join(dir, 'files'), join(dir, 'files.signed'));
    await growOneByOne(tiles, 600);
    const files = readdirSync(join(dir, 'files', 'tile'), { recursive: true, withFileTypes: true })
      .filter((file) => file.isFile())
      .map((file) => join(file.parentPath, file.name).slice(join(dir, 'files').length + 1));
    // Before partials were dropped: 1,199 partial files here (600 bundles, 597 tiles).
    assert.deepEqual(files.filter((path) => path.includes('.p/')).sort(), edgePartials(600));
    assert.equal(files.length, edgePartials(600).length + 4, 'two full tiles, two full bundles');
  });

  test('memory: the same', async () => {
    const tiles = new MemoryTileStore();
    await growOneByOne(tiles, 300);
    const paths = [...tiles.tiles.files.keys()];
    assert.deepEqual(paths.filter((path) => path.includes('.p/')).sort(), edgePartials(300));
  });

  test('PostgreSQL: the same, in the transaction that writes the full tile', async () => {
    const url = await freshStoreUrl();
    const store = await PostgresStore.open({ url, poolSize: 2 });
    try {
      await growOneByOne(new PostgresTiles(store.db), 300);
      const rows = await sql<{ path: string }>(url, 'SELECT path FROM cards_log_tiles');
      const paths = rows.map((row) => row.path);
      assert.deepEqual(paths.filter((path) => path.includes('.p/')).sort(), edgePartials(300));
    } finally {
      await store.close();
    }
  });

  test('a client reading a static copy of the tiles folder gets a removed partial from its full tile', async (t) => {
    const folder = join(dir, 'static');
    await growOneByOne(new FileTiles(folder, `${folder}.signed`), 300);
    // Any static file server: /log/<path> is <folder>/<path>, 404 when there is no such file.
    const server = createServer((request, response) => {
      try {
        const body = readFileSync(join(folder, (request.url ?? '').slice('/log/'.length)));
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const remote = new RemoteLog(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      30,
    ).tilesOf('test.local/log');
    const expected = new Map(
      appendEntries(EMPTY_EDGE, entries(0, 200)).tiles.map((x) => [tilePath(x.tile), x.data]),
    );
    for (const tile of tilesForSize(200)) {
      assert.ok(tile.width < 256, `${tilePath(tile)}: removed once tile 0 was full`);
      assert.deepEqual(await remote.readTile(tile), expected.get(tilePath(tile)), tilePath(tile));
    }
    assert.equal(await remote.readTile({ level: 0, index: 5, width: 3 }), undefined);
  });

  test('a crash after the partials went and before the checkpoint: the log reopens at its last checkpoint', async () => {
    const folder = join(dir, 'crash');
    let crash = false;
    // Stops where a kill -9 could: the batch's tiles written and its partials gone, no checkpoint.
    class Crashing extends FileTiles {
      override update<T>(fn: (tx: TileTransaction) => Promise<T>): Promise<T> {
        return super.update((tx) =>
          fn({
            ...tx,
            writeCheckpoint: async (signed, epoch, record) => {
              if (crash) throw new Error('killed');
              await tx.writeCheckpoint(signed, epoch, record);
            },
          }),
        );
      }
    }
    const key = generatePrivateKey();
    const origin = 'example.com/crash';
    const writer = await LogWriter.open({
      tiles: new Crashing(folder, `${folder}.signed`),
      origin,
      key,
    });
    for (let n = 0; n < 255; n++) await writer.append([entry(n)]);
    crash = true;
    await assert.rejects(writer.append([entry(255), entry(256)]), /killed/);
    assert.deepEqual(readdirSync(join(folder, 'tile/entries')).sort(), ['000', '001.p']);

    const tiles = new FileTiles(folder, `${folder}.signed`);
    const reopened = await LogWriter.open({ tiles, origin, key });
    assert.equal(reopened.size, 255);
    const expected = appendEntries(EMPTY_EDGE, entries(0, 255)).tiles;
    for (const { tile, data } of expected) assert.deepEqual(await tiles.readTile(tile), data);
    await reopened.append([entry(255), entry(256)]);
    assert.equal(reopened.size, 257);
  });
});
