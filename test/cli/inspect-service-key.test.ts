/**
 * `cards inspect` and the service key: a local store's service key is used
 * when --db names it (and the report says so); without any key the report says plainly that
 * the service signature was NOT checked and how to give the key; `cards key service` prints
 * it. `node bin/cards.js` against a real `cards serve` on port 0.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Report {
  ok: boolean;
  signatures: { signer: string; status: string }[];
  service: { signer: string; checked: boolean; keyFrom: string | null; hint: string | null };
}

describe('inspect and the service key', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  let cardId: string;
  before(async () => {
    // No CARDS_DB: the sandbox's folder has no store, so no key is found by default.
    ({ server, box } = await serverInSandbox({ env: ({ url }) => ({ CARDS_URL: url }) }));
    const made = await box.cards(['create', '--identity', 'ivy', '--new-key', '--json'], {
      env: { CARDS_DB: server.paths.store },
    });
    assert.equal(made.status, 0, said(made));
    const result = made.json<{ id: string; card: unknown }>();
    cardId = result.id;
    writeFileSync(join(box.dir, 'ivy.json'), JSON.stringify(result.card));
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('no key anywhere: OK, but the service signature is said NOT checked, with how to', async () => {
    const json = await box.cards(['inspect', 'ivy.json', '--json']);
    assert.equal(json.status, 0, said(json));
    const report = json.json<Report>();
    assert.equal(report.service.checked, false);
    assert.equal(report.service.keyFrom, null);
    assert.match(report.service.hint ?? '', /--service-key/);
    assert.match(report.service.hint ?? '', /cards key service/);
    const text = await box.cards(['inspect', 'ivy.json']);
    assert.match(text.stdout, /OK \(service signature NOT checked\)/);
    assert.match(text.stdout, /"service" signature NOT checked: no service key/);
  });

  test('--db (or CARDS_DB) names the store: its service key checks the signature', async () => {
    for (const how of [
      { args: ['--db', server.paths.store], env: {} },
      { args: [], env: { CARDS_DB: server.paths.store } },
    ]) {
      for (const input of ['ivy.json', cardId]) {
        const r = await box.cards(['inspect', input, ...how.args, '--json'], { env: how.env });
        assert.equal(r.status, 0, said(r));
        const report = r.json<Report>();
        assert.deepEqual(
          report.signatures.map((s) => [s.signer, s.status]),
          [
            ['self', 'valid'],
            ['service', 'valid'],
          ],
        );
        assert.equal(report.service.checked, true);
        assert.equal(
          report.service.keyFrom,
          `the local store's service key ${server.paths.serviceKey}`,
        );
      }
    }
    const text = await box.cards(['inspect', 'ivy.json', '--db', server.paths.store]);
    assert.match(text.stdout, /"service" checked with the local store's service key/);
    assert.doesNotMatch(text.stdout, /NOT checked/);
  });

  test("another store's key is really used: the signature fails (exit 5)", async () => {
    writeFileSync(join(box.dir, 'other.json.service-key.pem'), generatePrivateKey().toPem(), {
      mode: 0o600,
    });
    const r = await box.cards(['inspect', 'ivy.json', '--db', 'other.json']);
    assert.equal(r.status, 5, said(r));
    assert.match(r.stdout, /service +invalid/);
  });

  test('an unpublished card with a local key: no service signature, not a failure', async () => {
    const built = await box.cards(['build', '--identity', 'ivy']);
    assert.equal(built.status, 0, said(built));
    const r = await box.cards(['inspect', '-', '--db', server.paths.store, '--json'], {
      input: built.stdout,
    });
    assert.equal(r.status, 0, said(r));
    const report = r.json<Report>();
    assert.equal(report.service.checked, false);
    assert.match(report.service.hint ?? '', /no service signature/);
  });

  test('cards key service prints the store key, the one cards serve announced', async () => {
    const r = await box.cards(['key', 'service', '--db', server.paths.store]);
    assert.equal(r.status, 0, said(r));
    assert.equal(r.stdout.trim(), server.serviceKey);
    const given = await box.cards([
      'inspect',
      'ivy.json',
      '--service-key',
      r.stdout.trim(),
      '--json',
    ]);
    assert.equal(given.json<Report>().service.keyFrom, '--service-key');
    const none = await box.cards(['key', 'service']);
    assert.equal(none.status, 3, said(none));
    assert.match(none.stderr, /cards serve --db STORE/);
  });
});
