/**
 * A log and its witnesses (C2SP tlog-witness v1.0.0), with a real witness server behind a gate
 * the test opens: a checkpoint is published as soon as it is signed, whatever its witnesses do;
 * each cosignature joins the stored and the published checkpoint when it comes; a writer that
 * opens an existing log asks for its current checkpoint to be cosigned at once; one cosignature
 * per witness is kept across restarts; a witness that never answers holds nothing back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { PrivateKey } from '../../src/crypto/keys.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { parseNote } from '../../src/log/note.js';
import {
  KEY_TYPE_COSIGNATURE,
  ed25519Verifier,
  formatVerifierKey,
  type NoteVerifier,
} from '../../src/log/note-keys.js';
import { cosignatureVerifier } from '../../src/log/cosignature.js';
import { MemoryTileStore } from '../../src/log/tile-store.js';
import { cosignersOf, parseTlogProof } from '../../src/log/tlog-proof.js';
import { witnessClient } from '../../src/server/witness-client.js';
import { createWitnessServer } from '../../src/witness/server.js';
import { openWitnessFolder } from '../../src/witness/state.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-cosigning-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ORIGIN = 'cards.example/cosigned';
const logKey = PrivateKey.fromSeed(new Uint8Array(32).fill(5));
const entries = (from: number, n: number): Uint8Array[] =>
  Array.from({ length: n }, (_, i) => new TextEncoder().encode(`entry ${from + i}`));

/** A server on port 0 running `handle`, closed after the test. */
async function listen(
  t: { after: (fn: () => unknown) => void },
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The real witness, reached through a gate that holds every request while it is shut. */
async function gatedWitness(t: { after: (fn: () => unknown) => void }, name: string) {
  const logs = new Map<string, NoteVerifier[]>([
    [ORIGIN, [ed25519Verifier(ORIGIN, logKey.publicKey.raw)]],
  ]);
  const folder = await openWitnessFolder(join(dir, name), name);
  const witness = createWitnessServer({ folder, logs, now: () => 1_700_000_000 });
  const target = await witness.listen(0, '127.0.0.1');
  t.after(() => witness.close());
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  let requests = 0;
  const url = await listen(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      requests++;
      await gate;
      const answer = await fetch(`${target}${req.url}`, {
        method: 'POST',
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  return {
    client: witnessClient({ url, vkey: witness.vkey }),
    verifier: cosignatureVerifier(witness.vkey),
    open: () => open(),
    shut: () => (gate = new Promise<void>((resolve) => (open = resolve))),
    requests: () => requests,
  };
}

test('a checkpoint is published at once; its cosignature joins it when the witness answers', async (t) => {
  const w = await gatedWitness(t, 'w1');
  const tiles = new MemoryTileStore();
  const writer = await LogWriter.open({
    tiles,
    origin: ORIGIN,
    key: logKey,
    cosigners: [w.client],
  });
  t.after(() => writer.close(0));
  await writer.append(entries(0, 5));
  assert.equal(writer.published.size, 5, 'published before the witness answered');
  assert.deepEqual(cosignersOf(writer.published.checkpoint, [w.verifier]), []);
  const uncosigned = parseTlogProof(await writer.proof(4)).checkpoint;
  assert.deepEqual(cosignersOf(uncosigned, [w.verifier]), []);

  w.open();
  await writer.cosigned();
  assert.deepEqual(cosignersOf(writer.published.checkpoint, [w.verifier]), [w.verifier.name]);
  assert.equal(await tiles.readCheckpoint(), writer.published.checkpoint, 'kept as stored');
  const cosigned = parseTlogProof(await writer.proof(4)).checkpoint;
  assert.deepEqual(cosignersOf(cosigned, [w.verifier]), [w.verifier.name]);
  assert.equal(parseNote(cosigned).text, parseNote(uncosigned).text, 'the same tree');
});

test('checkpoints superseded while the witness was busy are skipped; the newest is cosigned', async (t) => {
  const w = await gatedWitness(t, 'w2');
  const writer = await LogWriter.open({
    tiles: new MemoryTileStore(),
    origin: ORIGIN,
    key: logKey,
    cosigners: [w.client],
  });
  t.after(() => writer.close(0));
  for (let i = 0; i < 10; i++) await writer.append(entries(i, 1));
  assert.equal(writer.published.size, 10);
  w.open();
  await writer.cosigned();
  assert.ok(w.requests() <= 3, `${w.requests()} requests for 11 checkpoints`);
  assert.deepEqual(cosignersOf(writer.published.checkpoint, [w.verifier]), [w.verifier.name]);
});

test('a writer opening a log gets its current checkpoint cosigned at once, one line per witness', async (t) => {
  const tiles = new MemoryTileStore();
  const plain = await LogWriter.open({ tiles, origin: ORIGIN, key: logKey });
  await plain.append(entries(0, 7));
  await plain.close();

  const w = await gatedWitness(t, 'w3');
  w.open();
  const opened = await LogWriter.open({
    tiles,
    origin: ORIGIN,
    key: logKey,
    cosigners: [w.client],
  });
  await opened.cosigned();
  assert.deepEqual(cosignersOf(opened.published.checkpoint, [w.verifier]), [w.verifier.name]);
  await opened.close();

  // Opened again: cosigned again, the witness's earlier line replaced rather than kept beside.
  const again = await LogWriter.open({ tiles, origin: ORIGIN, key: logKey, cosigners: [w.client] });
  await again.cosigned();
  await again.close();
  const lines = parseNote(again.published.checkpoint).signatures;
  assert.equal(lines.filter((s) => s.name === w.verifier.name).length, 1);
  assert.equal(lines.length, 2, 'the log key and the witness');
});

test('a witness that never answers holds back neither publication, nor the others, nor close', async (t) => {
  const silent = await listen(t, () => undefined);
  const silentKey = formatVerifierKey(
    'silent/witness',
    KEY_TYPE_COSIGNATURE,
    PrivateKey.fromSeed(new Uint8Array(32).fill(9)).publicKey.raw,
  );
  const hanging = witnessClient({ url: silent, vkey: silentKey, timeoutMs: 60_000 });
  const w = await gatedWitness(t, 'w4');
  w.open();
  const writer = await LogWriter.open({
    tiles: new MemoryTileStore(),
    origin: ORIGIN,
    key: logKey,
    cosigners: [hanging, w.client],
  });
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<string>((resolve) => (timer = setTimeout(resolve, 5000, 'stuck')));
  const appended = writer.append(entries(0, 3)).then(() => 'appended');
  assert.equal(await Promise.race([appended, stuck]), 'appended');
  assert.equal(writer.published.size, 3);
  for (let waited = 0; waited < 5000; waited += 20) {
    if (cosignersOf(writer.published.checkpoint, [w.verifier]).length === 1) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(cosignersOf(writer.published.checkpoint, [w.verifier]), [w.verifier.name]);
  const closed = writer.close(100).then(() => 'closed');
  assert.equal(await Promise.race([closed, stuck]), 'closed');
  clearTimeout(timer);
});

test('a witness that answers without end is given up on at 64 KiB, not read whole', async (t) => {
  let sent = 0;
  const endless = await listen(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'A');
    const pump = (): void => {
      while (sent < 256 * 1024 * 1024) {
        sent += chunk.byteLength;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  const vkey = formatVerifierKey(
    'endless/witness',
    KEY_TYPE_COSIGNATURE,
    PrivateKey.fromSeed(new Uint8Array(32).fill(11)).publicKey.raw,
  );
  const writer = await LogWriter.open({
    tiles: new MemoryTileStore(),
    origin: ORIGIN,
    key: logKey,
  });
  await writer.append(entries(0, 2));
  const client = witnessClient({ url: endless, vkey });
  await assert.rejects(
    client.cosign(
      writer.published.checkpoint,
      2,
      () => Promise.resolve([]),
      new AbortController().signal,
    ),
    /answered more than 64 KiB/,
  );
  assert.ok(sent < 64 * 1024 * 1024, `the witness got to send ${sent} bytes`);
  await writer.close(100);
});
