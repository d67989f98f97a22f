/**
 * The C2SP specifications' own examples and Go's sumdb/note vectors (fixtures/tlog-vectors.json),
 * and the tlog-tiles path and bundle encodings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBase64 } from '../../src/core/encoding.js';
import { parseCheckpoint } from '../../src/log/checkpoint.js';
import { cosignatureMessage, cosignatureTimestamp } from '../../src/log/cosignature.js';
import { decodeEntryBundle, encodeEntryBundle } from '../../src/log/entry-bundle.js';
import { openNote, parseNote, signNote } from '../../src/log/note.js';
import {
  KEY_TYPE_COSIGNATURE,
  ed25519Signer,
  ed25519Verifier,
  keyId,
  parseSignerKey,
  parseVerifierKey,
} from '../../src/log/note-keys.js';
import { parseTilePath, tilePath, tileWidth, tilesForSize } from '../../src/log/tile-path.js';
import { parseAddCheckpoint } from '../../src/log/witness.js';
import { readFixture } from '../helpers/fixtures.js';

interface Vectors {
  signedNote: { vkey: string; note: string };
  cosignature: {
    checkpoint: string;
    witnessName: string;
    timestamp: number;
    signedMessage: string;
  };
  witnessRequest: string;
  goNote: {
    vkey: string;
    skey: string;
    enochVkey: string;
    text: string;
    peterSig: string;
    enochSig: string;
  };
}
const v = readFixture<Vectors>('tlog-vectors.json');

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

test('signed-note v1.0.0 example: the vkey verifies the note; any flipped bit refuses it', () => {
  const verifier = ed25519Verifier(v.signedNote.vkey);
  assert.equal(verifier.keyId, 0x530d903a);
  const opened = openNote(v.signedNote.note, [verifier]);
  assert.equal(opened.text, 'This is an example message.\n');
  const bytes = new TextEncoder().encode(v.signedNote.note);
  for (let bit = 0; bit < bytes.length * 8; bit += 3) {
    const copy = bytes.slice();
    copy[bit >> 3]! ^= 1 << (bit & 7);
    assert.ok(
      codeOf(() => openNote(copy, [verifier])),
      `bit ${bit} accepted`,
    );
  }
});

test("Go's sumdb/note vectors: keys parse, signing is deterministic, unknown keys are ignored", () => {
  const g = v.goNote;
  const { parsed, privateKey } = parseSignerKey(g.skey);
  assert.equal(parsed.keyId, 0xc74f20a3);
  const signer = ed25519Signer(parsed.name, privateKey);
  assert.equal(signNote(g.text, [signer]), `${g.text}\n${g.peterSig}`);
  const peter = ed25519Verifier(g.vkey);
  const enoch = ed25519Verifier(g.enochVkey);
  const both = `${g.text}\n${g.peterSig}${g.enochSig}`;
  assert.deepEqual(
    openNote(both, [peter]).verified.map((s) => s.name),
    ['PeterNeumann'],
  );
  assert.equal(openNote(both, [peter, enoch]).verified.length, 2);
  // A known name with another key ID is an unknown key: ignored, so nothing verifies.
  const other = { ...peter, keyId: peter.keyId ^ 1 };
  assert.equal(
    codeOf(() => openNote(both, [other])),
    'LOG_SIGNATURE_INVALID',
  );
  // Go's own mangled keys: a wrong-length key and an unknown algorithm (hash adjusted) fail.
  for (const bad of [
    'PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==',
    'PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
    'PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
    'Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
  ]) {
    assert.equal(
      codeOf(() => parseVerifierKey(bad)),
      'KEY_FORMAT',
      bad,
    );
  }
});

test('tlog-cosignature v1.0.1 example: a 0x04 line frames a timestamped signature; the message', () => {
  const note = parseNote(v.cosignature.checkpoint);
  const checkpoint = parseCheckpoint(note.text);
  assert.equal(checkpoint.origin, 'example.com/behind-the-sofa');
  assert.equal(checkpoint.size, 20_852_163);
  const w = note.signatures.find((s) => s.name === v.cosignature.witnessName)!;
  assert.equal(w.signature.byteLength, 72);
  assert.equal(cosignatureTimestamp(w.signature), v.cosignature.timestamp);
  assert.equal(
    new TextDecoder().decode(cosignatureMessage(note.text, v.cosignature.timestamp)),
    v.cosignature.signedMessage,
  );
  assert.notEqual(
    keyId('x', KEY_TYPE_COSIGNATURE, new Uint8Array(32)),
    keyId('x', 1, new Uint8Array(32)),
  );
});

test('tlog-witness v1.0.0 example request parses: old size, four proof hashes, the checkpoint', () => {
  const request = parseAddCheckpoint(v.witnessRequest);
  assert.equal(request.oldSize, 20_852_014);
  assert.equal(request.proof.length, 4);
  assert.equal(request.checkpoint.size, 20_852_163);
  assert.equal(parseNote(request.signedCheckpoint).signatures.length, 2);
});

test('tile paths: the spec examples, strict parsing, widths for the spec example tree of 70,000', () => {
  assert.equal(tilePath({ level: 0, index: 1_234_067, width: 256 }), 'tile/0/x001/x234/067');
  assert.equal(tilePath({ level: 2, index: 0, width: 1 }), 'tile/2/000.p/1');
  assert.equal(
    tilePath({ level: 'entries', index: 1000, width: 17 }),
    'tile/entries/x001/000.p/17',
  );
  for (const path of ['tile/0/x001/x234/067', 'tile/entries/273.p/112', 'tile/63/000']) {
    assert.equal(tilePath(parseTilePath(path)!), path);
  }
  for (const bad of [
    'tile/0/1234067',
    'tile/0/x1/234',
    'tile/01/000',
    'tile/64/000',
    'tile/0/000.p/256',
    'tile/0/000.p/0',
    'tile/0/000.p/05',
    'tile/0/x000/001',
    'tile/0/001/',
    'tile/entries/x001',
  ]) {
    assert.equal(parseTilePath(bad), undefined, bad);
  }
  // "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0
  // tile of width 112, one full level 1 tile, one partial level 1 tile of width 17, and one
  // partial level 2 tile of width 1"
  const tiles = tilesForSize(70_000).filter((t) => t.level !== 'entries');
  assert.equal(tiles.filter((t) => t.level === 0 && t.width === 256).length, 273);
  assert.deepEqual(
    tiles.filter((t) => t.width < 256).map((t) => [t.level, t.width]),
    [
      [0, 112],
      [1, 17],
      [2, 1],
    ],
  );
  assert.equal(tiles.filter((t) => t.level === 1 && t.width === 256).length, 1);
  assert.equal(tileWidth(1, 0, 256), 1);
  assert.equal(tileWidth(0, 1, 256), 0);
});

test('entry bundles: uint16 big-endian length prefixes; truncation refused', () => {
  const entries = [new Uint8Array([]), new Uint8Array(300).fill(7), new Uint8Array([1, 2, 3])];
  const bundle = encodeEntryBundle(entries);
  assert.deepEqual([...bundle.subarray(0, 4)], [0, 0, 1, 44]);
  assert.deepEqual(decodeEntryBundle(bundle), entries);
  assert.equal(decodeEntryBundle(bundle.subarray(0, bundle.length - 1)), undefined);
  assert.throws(() => encodeEntryBundle([new Uint8Array(65_536)]), RangeError);
  assert.ok(decodeBase64('AA==')); // encodings module in use
});
