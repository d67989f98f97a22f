/**
 * File tiles: a log written to a folder in batches is resumed from its files alone (loadEdge:
 * no pass over the entries), proves inclusion from them, serves a dropped partial tile from the
 * full one, and its files are exactly the memory store's bytes at the same paths.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EMPTY_EDGE, appendEntries, edgeRoot, loadEdge } from '../../src/log/append.js';
import { FileTiles } from '../../src/store/json/file-tiles.js';
import { leafHash } from '../../src/log/hash.js';
import { MemoryTiles } from '../../src/log/memory-tiles.js';
import { inclusionProof, verifyInclusion } from '../../src/log/proofs.js';
import { TileHashReader } from '../../src/log/tile-hashes.js';
import { entry } from '../helpers/log-kit.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-tiles-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a folder of tiles resumes, proves and matches the memory tiles byte for byte', async () => {
  const files = new FileTiles(dir, `${dir}.signed`);
  const memory = new MemoryTiles();
  let edge = EMPTY_EDGE;
  for (const n of [1, 254, 2, 300, 65_000, 600]) {
    // Resume from the files before every batch, as a restarted server would.
    edge = await loadEdge(edge.size, files);
    const batch = Array.from({ length: n }, (_, k) => entry(edge.size + k));
    const result = appendEntries(edge, batch);
    await files.write(result.tiles);
    memory.write(result.tiles);
    edge = result.edge;
  }
  assert.equal(edge.size, 66_157);
  const root = edgeRoot(edge);
  assert.deepEqual(edgeRoot(await loadEdge(edge.size, files)), root);
  for (const [path, data] of memory.files) {
    assert.deepEqual(new Uint8Array(readFileSync(join(dir, path))), data, path);
  }
  const reader = new TileHashReader(files).at(edge.size);
  for (const index of [0, 255, 256, 65_535, 65_536, 66_156]) {
    const proof = await inclusionProof(index, edge.size, reader);
    assert.ok(verifyInclusion(leafHash(entry(index)), index, edge.size, proof, root));
  }
  rmSync(join(dir, 'tile/0/000.p/1'));
  assert.deepEqual(
    await files.readTile({ level: 0, index: 0, width: 1 }),
    memory.readSync({ level: 0, index: 0, width: 256 })!.subarray(0, 32),
  );
  rmSync(join(dir, 'tile/entries/000.p/255'));
  assert.ok(await files.readTile({ level: 'entries', index: 0, width: 255 }));
  await assert.rejects(loadEdge(edge.size + 1, files), { code: 'STORE_CORRUPT' });
});
