/**
 * A card the transparency log cannot hold is never stored. Every card is a log entry, and an
 * entry bundle writes each entry's length as a big-endian uint16 (C2SP tlog-tiles v0.1.0, "Log
 * entries"): a snapshot of more than 65,535 bytes, which an import line can carry though no
 * create body can, once stored, made every later integration fail, so no card after it was ever
 * in a signed checkpoint. Such a snapshot is 40092 on every path (the core's rule; an import
 * names it in its IMPORT_INVALID); one of
 * exactly 65,535 bytes is stored and logged, and the log goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { decodeSnapshot, reportSnapshot } from '../../src/core/snapshot.js';
import { MAX_ENTRY_SIZE } from '../../src/log/entry-bundle.js';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../../src/server/open-engine.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { runServeToExit } from '../helpers/server.js';
import { cardFromFields, makeCard } from '../http/card-kit.js';
import { call } from '../reliability/kit.js';

/** A self-signed card of `identity` whose snapshot is exactly `size` bytes (an extra member). */
function cardOfSize(identity: string, size: number) {
  const key = generatePrivateKey();
  const fields = (pad: string) => ({
    identity,
    public_key: encodeBase64(key.publicKey.spki),
    version: '5.0',
    created_at: 1_700_000_000,
    pad,
  });
  const bare = utf8(JSON.stringify(fields(''))).byteLength;
  const card = cardFromFields(fields('x'.repeat(size - bare)), key);
  assert.equal(
    Buffer.from(card.raw.content_snapshot, 'base64').byteLength,
    size,
    'the snapshot is as long as asked',
  );
  return card;
}

/** A stored card record: the card's signatures, then a service signature (an import keeps it). */
const record = (card: ReturnType<typeof cardOfSize>, identity: string): string => {
  const service = { signer: 'service', signature: card.raw.signatures![0]!.signature };
  const signatures = [...card.raw.signatures!, service];
  return `${JSON.stringify({ id: card.id, identity, ...card.raw, signatures })}\n`;
};

test('the core refuses a snapshot longer than a log entry (40092), on every path that reads one', () => {
  // The core's limit is the log's entry, which the core may not import (core at the bottom).
  assert.equal(LIMITS.snapshotMax, MAX_ENTRY_SIZE);
  const long = cardOfSize('mallory', 65_536).raw.content_snapshot;
  assert.throws(() => decodeSnapshot(long, 'card'), { code: 'SNAPSHOT_TOO_LONG' });
  assert.equal(reportSnapshot(long).problems[0]?.error.code, 'SNAPSHOT_TOO_LONG');
  const longest = cardOfSize('mallory', 65_535).raw.content_snapshot;
  assert.equal(decodeSnapshot(longest, 'card').bytes.byteLength, 65_535);
});

test('an import of a card the log cannot hold is refused, and the log keeps logging', async (t) => {
  const server = await startInProcess({ args: ['--quiet', '--log-interval', '50'] });
  t.after(() => server.dispose());
  const importLine = (body: string) =>
    fetch(`${server.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    });
  const tooLong = cardOfSize('mallory', 65_536);
  const refused = await importLine(record(tooLong, 'mallory'));
  const answer = (await refused.json()) as { code: string; message: string };
  assert.equal(refused.status, 400, answer.message);
  // An import names the line and the card's defect (IMPORT_INVALID, as for every defect).
  assert.equal(answer.code, '30102');
  assert.match(answer.message, /^Import line 1 .*too long: 65536 bytes, at most 65535/);
  assert.equal((await call(server, 'GET', `/card/v5/${tooLong.id}`)).status, 404);

  // The longest snapshot a log entry holds is stored and logged, and so is a card after it.
  const longest = cardOfSize('mallory', 65_535);
  assert.equal((await importLine(record(longest, 'mallory'))).status, 200);
  const after = makeCard('alice');
  assert.equal((await call(server, 'POST', '/card/v5', { body: after.raw })).status, 201);
  for (const id of [longest.id, after.id]) {
    const proof = await call(server, 'GET', `/log/proof/${id}`);
    assert.equal(proof.status, 200, `${id}: ${proof.text}`);
  }
});

test('a store that holds such a card already is refused at start with a way out, not a crash', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cards-entry-size-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'cards.json');
  // Written below the registry's rules, as an import of a build without them stored it.
  const engine = await openEngine(file);
  const tooLong = cardOfSize('mallory', 70_000);
  await engine.cards.insert({ id: tooLong.id, identity: 'mallory', ...tooLong.raw });
  await engine.close();
  const refused = await runServeToExit(['--port', '0', '--db', file], { cwd: dir });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /STORE_CORRUPT/);
  assert.match(refused.stderr, new RegExp(`${tooLong.id}.*70000 bytes`));
  assert.match(refused.stderr, /--no-log/);
  assert.doesNotMatch(refused.stderr, /this is a bug|RangeError/);
});
