/**
 * `cards rotate` end to end against a real `cards serve`: the replacement names
 * the live card, the keystore holds the new key only after the service accepted it, the old key
 * is a dated backup until --prune, and a refused rotation leaves the keystore as it was. The new
 * key is of the replaced key's type (a P-256 card stays P-256) unless --type says otherwise.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { keyFile, keysDir } from '../../src/cli/keystore.js';
import { parsePrivateKey } from '../../src/crypto/keys.js';
import { parseCardPrivateKey } from '../../src/crypto/signing-key.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Rotated {
  replaced: string;
  id: string;
  snapshot: { previousCardId: string; publicKey: string };
  backup: string | null;
  pruned: string[];
}

describe('cards rotate', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));
  const storedKey = (identity: string): string =>
    parsePrivateKey(readFileSync(keyFile(box.home, identity), 'utf8')).publicKey.toBase64();

  test('replaces the live card, swaps the key after acceptance, keeps a backup until --prune', async () => {
    const made = await box.cards([
      'create',
      '--identity',
      'ana@example.com',
      '--new-key',
      '--json',
    ]);
    assert.equal(made.status, 0, said(made));
    const first = made.json<{ id: string; snapshot: { publicKey: string } }>();

    const once = await box.cards(['rotate', '--identity', 'ana@example.com', '--json']);
    assert.equal(once.status, 0, said(once));
    const r1 = once.json<Rotated>();
    assert.equal(r1.replaced, first.id);
    assert.equal(r1.snapshot.previousCardId, first.id);
    assert.equal(storedKey('ana@example.com'), r1.snapshot.publicKey);
    assert.ok(r1.backup && existsSync(r1.backup));
    assert.equal(
      parsePrivateKey(readFileSync(r1.backup, 'utf8')).publicKey.toBase64(),
      first.snapshot.publicKey,
    );
    const old = (await box.cards(['get', first.id, '--json'])).json<{
      state: string;
      supersededBy: string;
    }>();
    assert.deepEqual([old.state, old.supersededBy], ['superseded', r1.id]);
    // The rotated key signs: a second rotation replaces the new head.
    const twice = await box.cards(['rotate', '--identity', 'ana@example.com', '--prune']);
    assert.equal(twice.status, 0, said(twice));
    assert.match(twice.stdout, /rotated ana@example\.com: [0-9a-f]{64} replaces [0-9a-f]{64}/);
    assert.match(twice.stdout, /old key kept .*\.bak \(until --prune\)/);
    assert.match(twice.stdout, /pruned /);
    assert.equal(existsSync(r1.backup), false, 'the earlier backup is pruned');
    const files = readdirSync(keysDir(box.home)).filter((f) => f.startsWith('ana@example.com'));
    assert.equal(files.filter((f) => f.endsWith('.bak')).length, 1, files.join(' '));
    assert.equal(files.filter((f) => f.endsWith('.pending')).length, 0);
    const search = await box.cards(['search', 'ana@example.com', '--json']);
    const chains = search.json<{ results: { chains: { id: string }[][] }[] }>().results[0]?.chains;
    assert.equal(chains?.length, 1);
    assert.equal(chains?.[0]?.length, 3);
  });

  test('a refused rotation leaves the keystore untouched; no live card is CARD_NOT_FOUND', async () => {
    const made = await box.cards(['create', '--identity', 'ben', '--new-key', '--json']);
    assert.equal(made.status, 0, said(made));
    const before = readFileSync(keyFile(box.home, 'ben'), 'utf8');
    const token = (await box.cards(['jwt', '--identity', 'not-ben'])).stdout.trim();
    const refused = await box.cards(['rotate', '--identity', 'ben', '--token', token]);
    assert.equal(refused.status, 4, said(refused));
    assert.match(refused.stderr, /IDENTITY_MISMATCH.*The keystore was not changed\./);
    assert.equal(readFileSync(keyFile(box.home, 'ben'), 'utf8'), before);
    assert.deepEqual(
      readdirSync(keysDir(box.home)).filter((f) => f.startsWith('ben.pem.')),
      [],
    );

    const none = await box.cards(['rotate', '--identity', 'nobody-here']);
    assert.equal(none.status, 3, said(none));
    assert.match(none.stderr, /CARD_NOT_FOUND.*no live card to rotate/);
  });

  test('a create request that could not connect stored nothing: the pending key goes, as on a refusal', async () => {
    const made = await box.cards(['create', '--identity', 'cy', '--new-key', '--json']);
    assert.equal(made.status, 0, said(made));
    const before = readFileSync(keyFile(box.home, 'cy'), 'utf8');
    const token = (await box.cards(['jwt', '--identity', 'cy'])).stdout.trim();
    // A service that answers the search for the live card and closes its port while it does:
    // the create request that follows meets a closed port (ECONNREFUSED).
    const body = async (req: IncomingMessage): Promise<Buffer> => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    const closing = createServer((req, res) => {
      if (req.url?.endsWith('/actions/search')) closing.close();
      void body(req).then(async (sent) => {
        const answer = await fetch(new URL(req.url ?? '/', server.url), {
          method: req.method ?? 'GET',
          headers: req.headers as Record<string, string>,
          ...(sent.length > 0 && { body: sent }),
        });
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
          connection: 'close',
        });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((listening) => closing.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
    const failed = await box.cards(['rotate', '--identity', 'cy', '--token', token], {
      env: { CARDS_URL: url },
    });
    assert.equal(failed.status, 6, said(failed));
    assert.match(
      failed.stderr,
      /UNREACHABLE.*Nothing reached the service; the keystore was not changed\./,
    );
    assert.equal(readFileSync(keyFile(box.home, 'cy'), 'utf8'), before);
    assert.deepEqual(
      readdirSync(keysDir(box.home)).filter((f) => f.startsWith('cy.pem.')),
      [],
    );
  });

  test("the new key is of the replaced key's type unless --type says otherwise", async () => {
    const keyOf = (identity: string): string => {
      const key = parseCardPrivateKey(readFileSync(keyFile(box.home, identity), 'utf8'));
      const details = key.keyObject.asymmetricKeyDetails;
      return [key.keyObject.asymmetricKeyType, details?.namedCurve ?? details?.modulusLength]
        .filter((part) => part !== undefined)
        .join('-');
    };
    const made = await box.cards(['keygen', '--identity', 'pia', '--type', 'p256']);
    assert.equal(made.status, 0, said(made));
    const card = await box.cards(['create', '--identity', 'pia']);
    assert.equal(card.status, 0, said(card));
    const kept = await box.cards(['rotate', '--identity', 'pia', '--json']);
    assert.equal(kept.status, 0, said(kept));
    assert.equal(keyOf('pia'), 'ec-prime256v1');
    assert.match(kept.json<Rotated>().snapshot.publicKey, /^MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/);
    const chosen = await box.cards(['rotate', '--identity', 'pia', '--type', 'ed25519']);
    assert.equal(chosen.status, 0, said(chosen));
    assert.equal(keyOf('pia'), 'ed25519');
    const refused = await box.cards(['rotate', '--identity', 'pia', '--type', 'p384']);
    assert.equal(refused.status, 2, said(refused));
  });
});
