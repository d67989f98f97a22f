/**
 * Tiles and entry bundles over HTTP (C2SP tlog-tiles), through `inject`. A log whose tiles are
 * files (the JSON engine's folder) is served as that static folder: the file at a tile's path as
 * sent, what a static file server would send; a partial tile removed once its full tile was
 * written is answered from the full tile; nothing else is a tile (a percent-encoded alias, a
 * path out of the folder). HEAD answers GET's headers. Each log has its own prefix: after a
 * reset, the old log's URLs are 404 and a read that spans the reset answers nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { encodeBase64 } from '../../src/core/encoding.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { FileTiles } from '../../src/store/json/file-tiles.js';
import { LogWriter } from '../../src/log/log-writer.js';
import type { TileRef } from '../../src/log/tile-path.js';
import { MemoryTileStore, type TileStore } from '../../src/log/tile-store.js';
import { CardLog } from '../../src/registry/card-log.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { makeTempDir, removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

const PUBLIC_KEY = encodeBase64(generatePrivateKey().publicKey.spki);

/** An app over a log on `tiles`; `add(n)` stores n more cards and integrates them. */
async function served(tiles: TileStore) {
  const store = new MemoryStore();
  const writer = await LogWriter.open({
    tiles,
    origin: 'test.local/tiles',
    key: generatePrivateKey(),
  });
  const log = await CardLog.open({ store, writer, intervalMs: 60_000 });
  const profile = PROFILES.service;
  const app = await createApp({
    registry: createRegistry({ store, serviceKey: generatePrivateKey(), signer: profile.signer }),
    profile,
    auth: createAuthenticator({ keys: [], scheme: profile.scheme }),
    log,
  });
  let stored = 0;
  const add = async (n: number): Promise<void> => {
    for (const end = stored + n; stored < end; stored++) {
      const bytes = new TextEncoder().encode(
        `{"identity":"u-${stored}","public_key":"${PUBLIC_KEY}","version":"5.0","created_at":${stored}}`,
      );
      await store.insert({
        id: cardIdOf(bytes),
        identity: `u-${stored}`,
        content_snapshot: encodeBase64(bytes),
        signatures: [],
      });
    }
    await log.integrate();
  };
  const get = (path: string, method: 'GET' | 'HEAD' = 'GET') =>
    app.inject({ method, url: `/log/${path}` });
  const close = async () => {
    await app.close();
    await log.close();
  };
  return { app, log, store, add, get, close };
}

const codeOf = (body: string): unknown => (JSON.parse(body) as { code: unknown }).code;

test('a folder of tile files is served as static files', async () => {
  const dir = makeTempDir('cards-tiles-');
  const { add, get, close } = await served(new FileTiles(dir, `${dir}.signed`));
  try {
    // Two batches: the partial tile 000.p/100 is written, then removed with its full tile.
    await add(100);
    await add(200);
    const full = await get('tile/0/000');
    assert.equal(full.statusCode, 200);
    assert.deepEqual(full.rawPayload, readFileSync(join(dir, 'tile/0/000')), 'the file');
    assert.equal(full.headers['content-type'], 'application/octet-stream');
    assert.equal(full.headers['cache-control'], 'public, max-age=31536000, immutable');
    const dropped = await get('tile/0/000.p/100');
    assert.equal(dropped.statusCode, 200, 'a removed partial, from its full tile');
    assert.deepEqual(dropped.rawPayload, full.rawPayload.subarray(0, 100 * 32));
    // A partial of width W never changes: immutable as a full tile (C2SP tlog-tiles).
    assert.equal(dropped.headers['cache-control'], 'public, max-age=31536000, immutable');
    const bundle = await get('tile/entries/001.p/44');
    assert.deepEqual(bundle.rawPayload, readFileSync(join(dir, 'tile/entries/001.p/44')));
    assert.equal(bundle.headers['cache-control'], 'public, max-age=31536000, immutable');
    // Whatever file is at a tile's path is what a static file server would send.
    writeFileSync(join(dir, 'tile/entries/009'), 'written by hand');
    assert.equal((await get('tile/entries/009')).body, 'written by hand');

    const head = await get('tile/0/000', 'HEAD');
    assert.deepEqual(
      [head.statusCode, head.headers['content-length'], head.body],
      [200, '8192', ''],
    );
    for (const path of [
      'tile/0/%30%30%30',
      'tile/0/000/',
      'tile/0/../../cards.json',
      'tile/0/..%2f..%2fcheckpoint',
      'tile/0/002',
      'tile/entries/001.p/45',
      'tile/checkpoint',
    ]) {
      const refused = await get(path);
      assert.equal(refused.statusCode, 404, path);
      assert.ok(['91008', '10002'].includes(String(codeOf(refused.body))), path);
    }
  } finally {
    await close();
  }
});

test('after a reset, no tile of the old log is served: files and kept reads alike', async () => {
  const dir = makeTempDir('cards-tiles-');
  const files = await served(new FileTiles(dir, `${dir}.signed`));
  /** Memory tiles whose reads wait for `release` while `hold` is set. */
  class GatedTiles extends MemoryTileStore {
    hold: Promise<void> | undefined;
    override async readTile(tile: TileRef): Promise<Uint8Array | undefined> {
      const data = await super.readTile(tile);
      await this.hold;
      return data;
    }
  }
  const gated = new GatedTiles();
  const memory = await served(gated);
  try {
    await files.add(3);
    assert.equal((await files.get('tile/entries/000.p/3')).statusCode, 200);
    // The next log's checkpoint, asked for before the reset that begins it: a 404 no cache may
    // keep to answer for it once it exists.
    const early = await files.get('reset-1/checkpoint');
    assert.deepEqual([early.statusCode, early.headers['cache-control']], [404, 'no-store']);
    await files.log.reset(() => files.store.reset());
    assert.equal((await files.get('reset-1/checkpoint')).statusCode, 200);
    const gone = await files.get('tile/entries/000.p/3');
    assert.equal(gone.statusCode, 404, 'not the kept bytes of the old log');
    assert.equal(codeOf(gone.body), '91008');
    assert.equal(gone.headers['cache-control'], 'no-store', 'a refusal no cache keeps');

    await memory.add(3);
    let release = (): void => undefined;
    gated.hold = new Promise((resolve) => (release = resolve));
    const reading = memory.get('tile/entries/000.p/3');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await memory.log.reset(() => memory.store.reset());
    gated.hold = undefined;
    // The new log answers first (another path), then the old read ends.
    assert.equal((await memory.get('tile/0/000.p/3')).statusCode, 404);
    release();
    // A read that spans a reset may have found either log's tile: it answers neither (404, not
    // cached), since the URL it was sent to names the old log's tile for good.
    const old = await reading;
    assert.deepEqual([old.statusCode, codeOf(old.body)], [404, '91008'], 'no read across a reset');
    assert.equal(old.headers['cache-control'], 'no-store', 'a refusal no cache keeps');
    assert.equal(memory.log.size, 0);
    const after = await memory.get('tile/entries/000.p/3');
    assert.deepEqual(
      [after.statusCode, codeOf(after.body)],
      [404, '91008'],
      'not kept for the new log',
    );
  } finally {
    await files.close();
    await memory.close();
  }
});
