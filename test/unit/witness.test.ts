/**
 * The witness (C2SP tlog-witness v1.0.0) through `inject`, with its state in a temp folder: it cosigns a growing log (cosignature/v1, key type 0x04, verified with its vkey), and
 * answers 409 + text/x.tlog.size for a stale old size, 409 for a fork at the same size, 422 for a
 * bad or forked consistency proof, 404 for an unknown origin, 403 for a bad signature, 400 for
 * a malformed body (a fork at the same size is written down as a warning, with the checkpoint);
 * it keeps its state and key across a restart, and refuses to start on a state file damaged by
 * hand (STORE_CORRUPT), leaving the file as it is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRequestLogger } from '../../src/http/request-log.js';
import { PrivateKey } from '../../src/crypto/keys.js';
import { signCheckpoint } from '../../src/log/checkpoint.js';
import { cosignatureVerifier } from '../../src/log/cosignature.js';
import { openNote } from '../../src/log/note.js';
import { ed25519Signer, ed25519Verifier, type NoteVerifier } from '../../src/log/note-keys.js';
import { consistencyProof } from '../../src/log/proofs.js';
import { formatAddCheckpoint } from '../../src/log/witness.js';
import { createWitnessServer } from '../../src/witness/server.js';
import { openWitnessFolder } from '../../src/witness/state.js';
import { buildLog } from '../helpers/log-kit.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-witness-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ORIGIN = 'cards.example/log';
const logKey = PrivateKey.fromSeed(new Uint8Array(32).fill(3));
const signer = ed25519Signer(ORIGIN, logKey);
const logs = new Map<string, NoteVerifier[]>([
  [ORIGIN, [ed25519Verifier(ORIGIN, logKey.publicKey.raw)]],
]);
const SIZES = [10, 300, 70_000];
const log = buildLog(SIZES);
const forkRoot = new Uint8Array(log.roots.get(300)!).map((b, i) => (i === 0 ? b ^ 1 : b));
const checkpoint = (size: number, root = log.roots.get(size)!, key = signer): string =>
  signCheckpoint({ origin: ORIGIN, size, root, extensions: [] }, [key]);

async function start(logged: string[] = []) {
  const folder = await openWitnessFolder(dir, 'witness.example/w1');
  const logger = createRequestLogger({ quiet: true, write: (text) => logged.push(text) });
  const witness = createWitnessServer({ folder, logs, now: () => 1_700_000_000, logger });
  const post = async (body: string) => {
    const res = await witness.app.inject({
      method: 'POST',
      url: '/add-checkpoint',
      payload: body,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    return { status: res.statusCode, type: res.headers['content-type'], text: res.body };
  };
  return { witness, post };
}

test('cosigns a consistent, growing log; refuses stale, forked, unknown, unsigned and malformed', async () => {
  const logged: string[] = [];
  const { witness, post } = await start(logged);
  try {
    const cosigner = cosignatureVerifier(witness.vkey);
    const first = await post(formatAddCheckpoint(0, [], checkpoint(10)));
    assert.equal(first.status, 200, first.text);
    const opened = openNote(checkpoint(10) + first.text, [cosigner]);
    assert.equal(opened.verified[0]?.name, 'witness.example/w1');

    const p = await consistencyProof(10, 300, log.reader.at(300));
    assert.equal((await post(formatAddCheckpoint(10, p, checkpoint(300)))).status, 200);

    // Stale old size: 409 with the latest size, as text/x.tlog.size.
    const stale = await post(formatAddCheckpoint(10, p, checkpoint(300)));
    assert.deepEqual([stale.status, stale.type, stale.text], [409, 'text/x.tlog.size', '300\n']);
    // Same size, another root: a fork at 300.
    assert.equal((await post(formatAddCheckpoint(300, [], checkpoint(300, forkRoot)))).status, 409);
    // The fork is written down (a warning), with the checkpoint it was offered.
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(
      logged.join(''),
      /warning: refused cards\.example\/log at size 300 \(cosigned: 300\)/,
    );
    assert.ok(logged.join('').includes(checkpoint(300, forkRoot).split('\n')[2] ?? '-'));
    // Same size and root: cosigned again with no proof, refused with one (the proof from a
    // size to itself is empty).
    assert.equal((await post(formatAddCheckpoint(300, [], checkpoint(300)))).status, 200);
    const bogus = [new Uint8Array(32).fill(7)];
    assert.equal((await post(formatAddCheckpoint(300, bogus, checkpoint(300)))).status, 422);
    // Only POST: anything else is 405 and says so.
    const get = await witness.app.inject({ method: 'GET', url: '/add-checkpoint' });
    assert.deepEqual([get.statusCode, get.headers.allow], [405, 'POST']);
    // A forked 70,000 (flipped root) cannot be proven consistent: 422.
    const q = await consistencyProof(300, 70_000, log.reader.at(70_000));
    const forked = new Uint8Array(log.roots.get(70_000)!).map((b, i) => (i === 5 ? b ^ 4 : b));
    assert.equal((await post(formatAddCheckpoint(300, q, checkpoint(70_000, forked)))).status, 422);
    // Rewinding is refused as well: an old size above the checkpoint's is a bad request.
    assert.equal((await post(formatAddCheckpoint(300, [], checkpoint(10)))).status, 400);
    // Unknown origin 404, a signature by another key 403, garbage 400.
    const other = ed25519Signer(ORIGIN, PrivateKey.fromSeed(new Uint8Array(32).fill(4)));
    const stranger = ed25519Signer('other.example/log', logKey);
    const strange = signCheckpoint(
      { origin: 'other.example/log', size: 1, root: log.roots.get(10)!, extensions: [] },
      [stranger],
    );
    assert.equal((await post(formatAddCheckpoint(0, [], strange))).status, 404);
    assert.equal(
      (await post(formatAddCheckpoint(300, q, checkpoint(70_000, undefined, other)))).status,
      403,
    );
    assert.equal((await post('old 01\n\nnot a checkpoint')).status, 400);
    // The honest extension still works after all that.
    assert.equal((await post(formatAddCheckpoint(300, q, checkpoint(70_000)))).status, 200);
  } finally {
    await witness.close();
  }
  const state = JSON.parse(readFileSync(join(dir, 'witness-state.json'), 'utf8'));
  assert.equal(state.logs[ORIGIN].size, 70_000);
});

test('a restarted witness keeps its key and its latest size', async () => {
  const { witness, post } = await start();
  try {
    const again = await post(formatAddCheckpoint(0, [], checkpoint(10)));
    assert.deepEqual([again.status, again.text], [409, '70000\n']);
    assert.match(witness.vkey, /^witness\.example\/w1\+[0-9a-f]{8}\+/);
  } finally {
    await witness.close();
  }
});

test('a witness state damaged by hand is STORE_CORRUPT and left as it is', async () => {
  const path = join(dir, 'witness-state.json');
  const good = readFileSync(path, 'utf8');
  const state = JSON.parse(good);
  const record = state.logs[ORIGIN];
  const damaged: Record<string, string> = {
    truncated: good.slice(0, 60),
    'not JSON': 'hello',
    'a negative size': JSON.stringify({ ...state, logs: { [ORIGIN]: { ...record, size: -1 } } }),
    'a fraction': JSON.stringify({ ...state, logs: { [ORIGIN]: { ...record, size: 1.5 } } }),
    'a root cut short': JSON.stringify({
      ...state,
      logs: { [ORIGIN]: { ...record, root: record.root.slice(0, 8) } },
    }),
    'no checkpoint': JSON.stringify({
      ...state,
      logs: { [ORIGIN]: { ...record, checkpoint: undefined } },
    }),
  };
  try {
    for (const [what, text] of Object.entries(damaged)) {
      writeFileSync(path, text);
      await assert.rejects(
        openWitnessFolder(dir, 'witness.example/w1'),
        { code: 'STORE_CORRUPT' },
        what,
      );
      assert.equal(readFileSync(path, 'utf8'), text, what);
    }
  } finally {
    writeFileSync(path, good);
  }
});
