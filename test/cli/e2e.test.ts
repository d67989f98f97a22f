/**
 * The networked commands end to end: `cards …` (the CLI's funnel, in-process) against a real
 * `cards serve` on port 0, in a temporary CARDS_HOME, finding the server's local app key
 * through CARDS_DB as a newcomer would. --json output is parsed and checked.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Published {
  id: string;
  card: { content_snapshot: string; signatures: { signer: string }[] };
  snapshot: { identity: string; previousCardId: string | null; publicKey: string };
}
interface Got {
  id: string;
  state: string;
  supersededBy: string | null;
  snapshot: { identity: string; publicKey: string };
}
interface Found {
  results: { identity: string; chains: { id: string; state: string }[][] }[];
  total: number;
  active: number;
}

describe('networked commands against cards serve', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('create, replace, get (active → superseded), search chains, revoke by id → revoked', async () => {
    const first = await box.cards(['create', '--identity', 'alice', '--new-key', '--json']);
    assert.equal(first.status, 0, said(first));
    const card = first.json<Published>();
    assert.equal(card.snapshot.identity, 'alice');
    assert.deepEqual(
      card.card.signatures.map((s) => s.signer),
      ['self', 'service'],
    );

    const got = await box.cards(['get', card.id, '--json']);
    assert.equal(got.json<Got>().state, 'active', said(got));

    const rotated = generatePrivateKey();
    writeFileSync(join(box.dir, 'alice-2.pem'), rotated.toPem());
    const second = await box.cards([
      'create',
      '--identity',
      'alice',
      '--previous',
      card.id,
      '--key',
      'alice-2.pem',
      '--json',
    ]);
    assert.equal(second.status, 0, said(second));
    const replacement = second.json<Published>();
    assert.equal(replacement.snapshot.previousCardId, card.id);
    assert.equal(replacement.snapshot.publicKey, rotated.publicKey.toBase64());

    const old = (await box.cards(['get', card.id, '--json'])).json<Got>();
    assert.equal(old.state, 'superseded');
    assert.equal(old.supersededBy, replacement.id);

    const found = await box.cards(['search', 'alice', '--json']);
    const result = found.json<Found>();
    assert.deepEqual(
      result.results[0]?.chains.map((chain) => chain.map((c) => [c.id, c.state])),
      [
        [
          [replacement.id, 'active'],
          [card.id, 'superseded'],
        ],
      ],
    );
    assert.equal(result.active, 1);
    const text = await box.cards(['search', 'alice']);
    assert.match(text.stdout, /● [0-9a-f]{64} {2}active[\s\S]*└ [0-9a-f]{64} {2}superseded/);

    const noYes = await box.cards(['revoke', replacement.id]);
    assert.equal(noYes.status, 2, said(noYes));
    assert.match(noYes.stderr, /--yes/);
    const revoked = await box.cards(['revoke', replacement.id, '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    assert.deepEqual(revoked.json<{ method: string; identity: string }>().method, 'by-id');
    assert.equal((await box.cards(['get', replacement.id, '--json'])).json<Got>().state, 'revoked');
    assert.equal((await box.cards(['get', card.id, '--json'])).json<Got>().state, 'revoked');
    assert.equal((await box.cards(['search', 'alice', '--json'])).json<Found>().total, 0);
    const again = await box.cards(['revoke', replacement.id, '--yes']);
    assert.equal(again.status, 4, said(again));
    assert.match(again.stderr, /CHAIN_REVOKED \(40310\)/);
  });

  test('build | publish -, publish FILE, inspect CARD_ID with the service key', async () => {
    const built = await box.cards(['build', '--identity', 'bob', '--new-key']);
    assert.equal(built.status, 0, said(built));
    const published = await box.cards(['publish', '-', '--json'], { input: built.stdout });
    assert.equal(published.status, 0, said(published));
    const card = published.json<Published>();
    assert.equal(
      card.card.content_snapshot,
      (JSON.parse(built.stdout) as Published['card']).content_snapshot,
    );

    const twice = await box.cards(['publish', '-'], { input: built.stdout });
    assert.equal(twice.status, 4, said(twice));
    assert.match(twice.stderr, /SNAPSHOT_NOT_UNIQUE \(40027\)/);

    const inspected = await box.cards([
      'inspect',
      card.id,
      '--service-key',
      server.serviceKey,
      '--json',
    ]);
    assert.equal(inspected.status, 0, said(inspected));
    const report = inspected.json<{
      ok: boolean;
      expectedId: string;
      signatures: { signer: string; status: string }[];
    }>();
    assert.deepEqual(
      report.signatures.map((s) => [s.signer, s.status]),
      [
        ['self', 'valid'],
        ['service', 'valid'],
      ],
    );
    const wrong = await box.cards([
      'inspect',
      card.id,
      '--service-key',
      generatePrivateKey().publicKey.toBase64(),
    ]);
    assert.equal(wrong.status, 5, said(wrong));
    assert.match(wrong.stdout, /service +invalid/);

    writeFileSync(
      join(box.dir, 'bob2.json'),
      (
        await box.cards([
          'build',
          '--identity',
          'bob',
          '--previous',
          card.id,
          '--created-at',
          '1700000000',
        ])
      ).stdout,
    );
    const fromFile = await box.cards(['publish', 'bob2.json', '--json']);
    assert.equal(fromFile.status, 0, said(fromFile));
    assert.equal(fromFile.json<Published>().snapshot.previousCardId, card.id);
  });

  test('revoke --with-card sends a revoking card; its id reads as a revocation', async () => {
    const made = (
      await box.cards(['create', '--identity', 'carol', '--new-key', '--json'])
    ).json<Published>();
    const revoked = await box.cards(['revoke', made.id, '--with-card', '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    const result = revoked.json<{ method: string; revocation: { id: string } }>();
    assert.equal(result.method, 'with-card');
    const tomb = (await box.cards(['get', result.revocation.id, '--json'])).json<Got>();
    assert.equal(tomb.state, 'revocation');
    assert.equal(tomb.snapshot.publicKey, '');
    assert.equal((await box.cards(['get', made.id, '--json'])).json<Got>().state, 'revoked');
  });

  test('unregister revokes every live chain and only then removes the key', async () => {
    const one = (
      await box.cards(['create', '--identity', 'dave', '--new-key', '--json'])
    ).json<Published>();
    writeFileSync(join(box.dir, 'dave-tablet.pem'), generatePrivateKey().toPem());
    const two = (
      await box.cards([
        'create',
        '--identity',
        'dave',
        '--key',
        'dave-tablet.pem',
        '--new-chain',
        '--json',
      ])
    ).json<Published>();
    const refused = await box.cards(['unregister', '--identity', 'dave']);
    assert.equal(refused.status, 2, said(refused));
    assert.ok(existsSync(join(box.home, 'keys', 'dave.pem')));
    assert.equal((await box.cards(['search', 'dave', '--json'])).json<Found>().active, 2);

    const gone = await box.cards(['unregister', '--identity', 'dave', '--yes', '--json']);
    assert.equal(gone.status, 0, said(gone));
    const result = gone.json<{ revoked: string[]; keyRemoved: string | null }>();
    assert.deepEqual([...result.revoked].sort(), [one.id, two.id].sort());
    assert.equal(result.keyRemoved, join(box.home, 'keys', 'dave.pem'));
    assert.ok(!existsSync(join(box.home, 'keys', 'dave.pem')));
    assert.equal((await box.cards(['search', 'dave', '--json'])).json<Found>().total, 0);
    const nothing = await box.cards(['unregister', '--identity', 'dave', '--yes']);
    assert.equal(nothing.status, 3, said(nothing));
  });

  test('seed: the example file, references, revocations, saved keys; search batches past 50', async () => {
    const seeded = await box.cards([
      'seed',
      join(process.cwd(), 'fixtures', 'seed-example.json'),
      '--save-keys',
      '--json',
    ]);
    assert.equal(seeded.status, 0, said(seeded));
    const result = seeded.json<{
      created: number;
      revoked: number;
      cards: Record<string, { id: string; state: string; identity: string }>;
      identities: Record<string, { identity: string; keyFile: string | null }>;
      signers: Record<string, string>;
    }>();
    assert.equal(result.created, Object.keys(result.cards).length);
    assert.equal(result.cards['alice-laptop']?.state, 'superseded');
    assert.equal(result.cards['carol-1']?.state, 'revoked');
    assert.ok(result.signers.app);
    assert.ok(result.identities.alice?.keyFile && existsSync(result.identities.alice.keyFile));
    assert.equal(result.identities.carol?.keyFile, null);
    for (const [name, card] of Object.entries(result.cards)) {
      const got = (await box.cards(['get', card.id, '--json'])).json<Got>();
      assert.equal(got.state, card.state, name);
    }
    const inspected = await box.cards([
      'inspect',
      result.cards['bob-1']?.id as string,
      '--trust',
      `app=${result.signers.app}`,
      '--json',
    ]);
    const extras = inspected.json<{ extras: Record<string, string> }>().extras;
    assert.deepEqual(JSON.parse(extras.self as string), {
      friend: result.cards['alice-laptop-2']?.id,
    });
    assert.deepEqual(JSON.parse(extras.app as string), {
      role: 'admin',
      invitedBy: 'alice@example.com',
    });

    writeFileSync(
      join(box.dir, 'many.json'),
      JSON.stringify({ version: 1, identities: [{ identity: 'm-${n}', count: 120 }] }),
    );
    const many = await box.cards(['seed', 'many.json', '--concurrency', '8', '--json']);
    assert.equal(many.status, 0, said(many));
    writeFileSync(
      join(box.dir, 'many.txt'),
      Array.from({ length: 120 }, (_, i) => `m-${i + 1}`).join('\n'),
    );
    const found = await box.cards(['search', '--from', 'many.txt', 'nobody', '--json']);
    const list = found.json<Found>();
    assert.equal(list.results.length, 121);
    assert.equal(list.active, 120);

    writeFileSync(
      join(box.dir, 'bad-seed.json'),
      JSON.stringify({
        version: 1,
        identities: [{ identity: 'x', cards: [{ replaces: 'ghost' }] }],
      }),
    );
    const bad = await box.cards(['seed', 'bad-seed.json']);
    assert.equal(bad.status, 2, said(bad));
    assert.match(bad.stderr, /ghost/);

    // The service's refusal stops the run and names the entry.
    writeFileSync(
      join(box.dir, 'refused-seed.json'),
      JSON.stringify({
        version: 1,
        identities: [{ identity: 'y', cards: [{ name: 'orphan', replaces: 'f'.repeat(64) }] }],
      }),
    );
    const refused = await box.cards(['seed', 'refused-seed.json', '--json']);
    assert.equal(refused.status, 4, said(refused));
    assert.match(refused.stderr, /PREVIOUS_NOT_FOUND \(40015\): seed: card "orphan"/);
    // Under --json the error object is on stdout too.
    const { error } = refused.json<{ error: { name: string } }>();
    assert.equal(error.name, 'PREVIOUS_NOT_FOUND');
  });

  test('exit statuses: not found 3, refused 4, unreachable 6, unauthorized 7', async () => {
    const missing = await box.cards(['get', 'a'.repeat(64)]);
    assert.equal(missing.status, 3, said(missing));
    assert.match(missing.stderr, /^error CARD_NOT_FOUND \(10001\): .*\n {2}check the id/);
    assert.equal(missing.stdout, '');

    const badPrevious = await box.cards([
      'create',
      '--identity',
      'erin',
      '--new-key',
      '--previous',
      'b'.repeat(64),
    ]);
    assert.equal(badPrevious.status, 4, said(badPrevious));
    assert.match(badPrevious.stderr, /PREVIOUS_NOT_FOUND \(40015\)/);

    const token = (await box.cards(['jwt', '--identity', 'someone-else'])).stdout.trim();
    const mismatch = await box.cards([
      'create',
      '--identity',
      'erin',
      '--new-key',
      '--token',
      token,
    ]);
    assert.equal(mismatch.status, 4, said(mismatch));
    assert.match(mismatch.stderr, /IDENTITY_MISMATCH \(40034\)/);

    // A token of its own: the local store's app key mints only for the server holding it.
    const down = await box.cards([
      'get',
      'a'.repeat(64),
      '--url',
      'http://127.0.0.1:1',
      '--token',
      't',
    ]);
    assert.equal(down.status, 6, said(down));
    assert.match(down.stderr, /UNREACHABLE \(90005\).*ECONNREFUSED[\s\S]*cards serve/);

    const garbage = await box.cards(['search', 'x', '--token', 'not.a.token']);
    assert.equal(garbage.status, 7, said(garbage));
    assert.match(garbage.stderr, /TOKEN_MALFORMED \(20302\)/);
    const foreign = generatePrivateKey();
    writeFileSync(join(box.dir, 'foreign.pem'), foreign.toPem());
    const untrusted = await box.cards(['search', 'x', '--app-key', 'foreign.pem']);
    assert.equal(untrusted.status, 7, said(untrusted));
    assert.match(untrusted.stderr, /TOKEN_SIGNATURE \(20303\)/);
    const none = await box.cards(['search', 'x'], {
      env: { CARDS_DB: join(box.dir, 'elsewhere.json') },
    });
    assert.equal(none.status, 7, said(none));
    assert.match(none.stderr, /CREDENTIALS_MISSING[\s\S]*--db/);
    const scheme = await box.cards(['search', 'x', '--compat', 'virgil']);
    assert.equal(scheme.status, 7, said(scheme));
    assert.match(scheme.stderr, /AUTH_SCHEME/);
  });
});

describe('--compat virgil against cards serve --compat virgil, with stock tokens', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => {
    const app = generatePrivateKey();
    ({ server, box } = await serverInSandbox({
      args: [
        '--compat',
        'virgil',
        '--jwt-key',
        app.publicKey.toBase64(),
        '--app-id',
        'a0a1',
        '--app-key-id',
        'k0k1',
      ],
      env: ({ url }) => ({ CARDS_URL: url, CARDS_COMPAT: 'virgil' }),
    }));
    writeFileSync(
      join(box.dir, 'app.json'),
      JSON.stringify({ APP_ID: 'a0a1', APP_KEY_ID: 'k0k1', APP_KEY: app.toBase64() }),
    );
  });
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('create, replace, get superseded, numeric error codes map back', async () => {
    const first = await box.cards([
      'create',
      '--identity',
      'vic',
      '--new-key',
      '--app-config',
      'app.json',
      '--json',
    ]);
    assert.equal(first.status, 0, said(first));
    const card = first.json<Published>();
    assert.deepEqual(
      card.card.signatures.map((s) => s.signer),
      ['self', 'virgil'],
    );
    const second = await box.cards([
      'create',
      '--identity',
      'vic',
      '--previous',
      card.id,
      '--app-config',
      'app.json',
      '--created-at',
      '1700000000',
      '--json',
    ]);
    assert.equal(second.status, 0, said(second));
    const got = await box.cards(['get', card.id, '--app-config', 'app.json', '--json']);
    assert.equal(got.json<Got>().state, 'superseded', said(got));
    const missing = await box.cards(['get', 'c'.repeat(64), '--app-config', 'app.json']);
    assert.equal(missing.status, 3, said(missing));
    assert.match(missing.stderr, /CARD_NOT_FOUND \(10001\)/);
  });
});
