/**
 * Every import path verifies the self signature of every key type the stock client makes (spec
 * 2.3 rule 2), as create does: `POST /_cards/import` to a real `cards serve`, `cards import
 * --url` and `cards import --store`. The cards are the stock client's
 * (fixtures/stock-client-key-types.json), each with its self signature's last byte flipped:
 * every one is refused, nothing is stored, and the server keeps answering. The Falcon hybrid's
 * verdict comes asynchronously (its verifier loads on first use): an import that did not wait
 * for it stored the card and then died of the refusal nobody awaited.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RawCard } from '../../src/core/card.js';
import { readFixture } from '../helpers/fixtures.js';
import { said, sandbox, type Sandbox } from '../cli/harness.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface KeyTypeCard {
  key_type: string;
  identity: string;
  card: RawCard;
  card_id: string;
  tampered_signature_base64: string;
}

const { cards } = readFixture<{ cards: KeyTypeCard[] }>('stock-client-key-types.json');
const SERVICE = { signer: 'service', signature: Buffer.alloc(64, 9).toString('base64') };

/** The export line of `entry` with its self signature tampered (or as made, `tampered: false`). */
function line(entry: KeyTypeCard, tampered = true): string {
  const signatures = entry.card.signatures.map((s) =>
    s.signer === 'self' && tampered ? { ...s, signature: entry.tampered_signature_base64 } : s,
  );
  return `${JSON.stringify({
    id: entry.card_id,
    identity: entry.identity,
    content_snapshot: entry.card.content_snapshot,
    signatures: [...signatures, SERVICE],
  })}\n`;
}

describe('an import of a card whose self signature does not verify, of every key type', () => {
  let server: TestServer;
  let box: Sandbox;
  before(async () => {
    server = await startServer({ args: ['--quiet'] });
    box = sandbox({ CARDS_URL: server.url, CARDS_DB: server.paths.store });
  });
  after(async () => {
    await server.dispose();
    box.cleanup();
  });

  const stored = async (id: string): Promise<number> => {
    const response = await fetch(`${server.url}/_cards/cards?limit=1000`);
    const page = (await response.json()) as { cards: { id: string }[] };
    return page.cards.filter((card) => card.id === id).length;
  };

  test('POST /_cards/import refuses each (30102), stores nothing, and the server lives on', async () => {
    assert.ok(cards.some((entry) => /FALCON/.test(entry.key_type)));
    for (const entry of cards) {
      const response = await fetch(`${server.url}/_cards/import?append=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: line(entry),
      });
      const body = (await response.json()) as { code: string; message: string };
      assert.equal(response.status, 400, `${entry.key_type}: ${JSON.stringify(body)}`);
      assert.equal(body.code, '30102', entry.key_type);
      assert.match(body.message, /Self signature verification failed/, entry.key_type);
      // A refusal left unawaited surfaces a moment later, as the process's death.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await stored(entry.card_id), 0, entry.key_type);
    }
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });

  test('cards import --url and cards import --store refuse each; the card as made imports', async () => {
    for (const entry of cards) {
      const file = join(box.dir, `${entry.key_type}.ndjson`);
      writeFileSync(file, line(entry));
      const viaUrl = await box.cards(['import', file, '--append', '--json'], { process: true });
      assert.equal(viaUrl.status, 4, `${entry.key_type} --url: ${said(viaUrl)}`);
      assert.match(viaUrl.stdout, /Self signature verification failed/, entry.key_type);
      const viaStore = await box.cards(
        ['import', file, '--store', join(box.dir, `${entry.key_type}.json`)],
        { process: true },
      );
      assert.equal(viaStore.status, 5, `${entry.key_type} --store: ${said(viaStore)}`);
      assert.match(said(viaStore), /Self signature verification failed/, entry.key_type);
      assert.doesNotMatch(viaStore.stderr, /[^.]\.\.$/m, 'one full stop');
      assert.equal(await stored(entry.card_id), 0, entry.key_type);
    }
    const falcon = cards.find((entry) => /FALCON/.test(entry.key_type));
    assert.ok(falcon);
    const file = join(box.dir, 'falcon-as-made.ndjson');
    writeFileSync(file, line(falcon, false));
    const made = await box.cards(['import', file, '--append', '--json'], { process: true });
    assert.equal(made.status, 0, said(made));
    assert.equal(await stored(falcon.card_id), 1);
  });
});
