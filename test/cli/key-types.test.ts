/**
 * Card key types through `cards` itself, in the spec profile against a real `cards serve`: keygen
 * --type makes P-256 and RSA keys in the stock formats; create, replace, inspect and revoke
 * work with them; the stock client's cards of every key type (fixtures/stock-client-key-types.json)
 * publish and inspect as valid, naming the algorithm; a Curve25519 card is refused by name.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readFixture } from '../helpers/fixtures.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Published {
  id: string;
  snapshot: { identity: string; publicKey: string; previousCardId: string | null };
}
interface Report {
  ok: boolean;
  signatures: { signer: string; status: string; reason: string; algorithm?: string }[];
}
interface KeyTypeFixture {
  cards: { key_type: string; card: unknown; card_id: string }[];
  unsignable: { key_type: string; public_key_base64: string }[];
}

describe('key types through the CLI (spec profile)', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  for (const [type, algorithm, spkiPrefix] of [
    ['p256', /ECDSA P-256 with SHA-512/, 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE'],
    ['rsa2048', /RSA-2048 PSS with SHA-512/, 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'],
  ] as const) {
    test(`keygen --type ${type}: create, replace, inspect, revoke`, async () => {
      const identity = `kt-${type}`;
      const made = await box.cards(['keygen', '--identity', identity, '--type', type, '--json']);
      assert.equal(made.status, 0, said(made));
      const { publicKey } = made.json<{ publicKey: string; type: string }>();
      assert.ok(publicKey.startsWith(spkiPrefix), publicKey);

      const first = await box.cards(['create', '--identity', identity, '--json']);
      assert.equal(first.status, 0, said(first));
      const card = first.json<Published>();
      assert.equal(card.snapshot.publicKey, publicKey);

      const inspected = await box.cards([
        'inspect',
        card.id,
        '--service-key',
        server.serviceKey,
        '--json',
      ]);
      assert.equal(inspected.status, 0, said(inspected));
      const self = inspected.json<Report>().signatures.find((s) => s.signer === 'self');
      assert.equal(self?.status, 'valid');
      assert.match(self?.algorithm ?? '', algorithm);
      const text = await box.cards(['inspect', card.id]);
      assert.match(text.stdout, algorithm);

      const next = await box.cards(['keygen', '--out', `${identity}-2.pem`, '--type', type]);
      assert.equal(next.status, 0, said(next));
      const replaced = await box.cards([
        'create',
        '--identity',
        identity,
        '--previous',
        card.id,
        '--key',
        `${identity}-2.pem`,
        '--json',
      ]);
      assert.equal(replaced.status, 0, said(replaced));
      const revoked = await box.cards(['revoke', replaced.json<Published>().id, '--yes']);
      assert.equal(revoked.status, 0, said(revoked));
    });
  }

  test('every stock-made card type publishes and inspects valid, naming its algorithm', async () => {
    const fixture = readFixture<KeyTypeFixture>('stock-client-key-types.json');
    for (const { key_type, card, card_id } of fixture.cards) {
      const file = join(box.dir, `${key_type}.json`);
      writeFileSync(file, JSON.stringify(card));
      const published = await box.cards(['publish', file, '--json']);
      assert.equal(published.status, 0, `${key_type}: ${said(published)}`);
      assert.equal(published.json<Published>().id, card_id);
      const inspected = await box.cards(['inspect', card_id, '--json']);
      assert.equal(inspected.status, 0, `${key_type}: ${said(inspected)}`);
      const self = inspected.json<Report>().signatures.find((s) => s.signer === 'self');
      assert.equal(self?.status, 'valid', key_type);
      assert.ok((self?.algorithm ?? '').length > 0, key_type);
    }
  });

  test('a Curve25519 card: inspect names the type (exit 5), the server refuses it (40090)', async () => {
    const fixture = readFixture<KeyTypeFixture>('stock-client-key-types.json');
    const x25519 = fixture.unsignable[0]?.public_key_base64 ?? '';
    const snapshot = JSON.stringify({
      identity: 'kt-x25519',
      public_key: x25519,
      version: '5.0',
      created_at: 1700000000,
    });
    const signature = Buffer.alloc(83).toString('base64');
    const card = {
      content_snapshot: Buffer.from(snapshot).toString('base64'),
      signatures: [{ signer: 'self', signature }],
    };
    const file = join(box.dir, 'x25519.json');
    writeFileSync(file, JSON.stringify(card));
    const inspected = await box.cards(['inspect', file]);
    assert.equal(inspected.status, 5, said(inspected));
    assert.match(inspected.stdout, /Curve25519 \(X25519\)/);
    const published = await box.cards(['publish', file]);
    assert.equal(published.status, 4, said(published));
    assert.match(published.stderr, /KEY_TYPE_UNSUPPORTED \(40090\)/);
    assert.match(published.stderr, /Curve25519/);
  });
});
