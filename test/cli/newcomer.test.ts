/**
 * A newcomer's first hour: the seed example of docs/cli.md, inspect of a revoking card,
 * no key left behind by a refused command, an empty --identity, unknown commands in the one
 * error format, fitting hints and readable output, against a real `cards serve` on port 0. The
 * seed example runs `node bin/cards.js` as a user runs it; the rest runs the CLI in-process.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { keyFile, keysDir } from '../../src/cli/keystore.js';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

const CLI_DOC = new URL('../../../docs/cli.md', import.meta.url);

/** The JSON block of the "Seed files" section of docs/cli.md, as a newcomer copies it. */
function readmeSeedExample(): string {
  const text = readFileSync(CLI_DOC, 'utf8');
  const section = text.slice(text.indexOf('## Seed files'));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/cli.md has a seed example');
  return block;
}

describe('a newcomer against cards serve', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  test('the seed example of docs/cli.md seeds as written (identities with dots, no ref)', async () => {
    writeFileSync(join(box.dir, 'readme-seed.json'), readmeSeedExample());
    const seeded = await box.cards(['seed', 'readme-seed.json', '--json'], { process: true });
    assert.equal(seeded.status, 0, said(seeded));
    const result = seeded.json<{
      cards: Record<string, { id: string; identity: string; state: string }>;
    }>();
    const bob = result.cards['bob@example.com#1'];
    assert.equal(bob?.identity, 'bob@example.com');
    assert.equal(result.cards['bob-old']?.state, 'revoked');
    assert.equal(result.cards['user-1000@example.com#1']?.state, 'active');
    // A reference through an identity with dots: the field is what follows the last dot.
    writeFileSync(
      join(box.dir, 'dots.json'),
      JSON.stringify({
        version: 1,
        identities: [
          { identity: 'zed@example.org' },
          { identity: 'amy@example.org', cards: [{ extra: { knows: '${zed@example.org.id}' } }] },
        ],
      }),
    );
    const dots = await box.cards(['seed', 'dots.json', '--json'], { process: true });
    assert.equal(dots.status, 0, said(dots));
  });

  test('inspect of a revoking card made by revoke --with-card: self "not applicable", exit 0', async () => {
    const made = await box.cards(['create', '--identity', 'rita', '--new-key', '--json']);
    const id = made.json<{ id: string }>().id;
    const revoked = await box.cards(['revoke', id, '--with-card', '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    const revocation = revoked.json<{ revocation: { id: string; card: object } }>().revocation;
    writeFileSync(join(box.dir, 'revoking.json'), JSON.stringify(revocation.card));
    for (const input of ['revoking.json', revocation.id]) {
      const inspected = await box.cards(['inspect', input, '--json']);
      assert.equal(inspected.status, 0, said(inspected));
      const report = inspected.json<{
        ok: boolean;
        signatures: { signer: string; status: string }[];
      }>();
      assert.equal(report.ok, true);
      assert.equal(report.signatures.find((s) => s.signer === 'self')?.status, 'not applicable');
    }
    const text = await box.cards(['inspect', 'revoking.json']);
    assert.match(text.stdout, /self +not applicable +a revoking card has no key/);
  });

  test('refused commands write no key: build with a too-long identity, create against a dead server', async () => {
    const long = 'x'.repeat(1025);
    const built = await box.cards(['build', '--identity', long, '--new-key']);
    assert.equal(built.status, 4, said(built));
    assert.match(built.stderr, /IDENTITY_TOO_LONG/);
    assert.equal(existsSync(keyFile(box.home, long)), false);
    assert.deepEqual(
      existsSync(keysDir(box.home))
        ? readdirSync(keysDir(box.home)).filter((f) => f.startsWith('='))
        : [],
      [],
    );

    // Without --new-chain the identity's live cards are looked up first: nothing is made.
    // A token of its own: the local store's app key mints only for the server holding it.
    const unchecked = await box.cards(
      ['create', '--identity', 'ivy', '--new-key', '--token', 't'],
      {
        env: { CARDS_URL: 'http://127.0.0.1:9' },
      },
    );
    assert.equal(unchecked.status, 6, said(unchecked));
    assert.equal(existsSync(keyFile(box.home, 'ivy')), false);
    const dead = await box.cards(
      ['create', '--identity', 'ivy', '--new-key', '--new-chain', '--token', 't'],
      { env: { CARDS_URL: 'http://127.0.0.1:9' } },
    );
    assert.equal(dead.status, 6, said(dead));
    assert.match(dead.stderr, /new key made for "ivy" was removed again: nothing was written/);
    assert.equal(existsSync(keyFile(box.home, 'ivy')), false);

    // A card the service refuses (a --previous it does not know): the key goes too.
    const refused = await box.cards([
      'create',
      '--identity',
      'ivy',
      '--new-key',
      '--previous',
      'a'.repeat(64),
    ]);
    assert.equal(refused.status, 4, said(refused));
    assert.match(refused.stderr, /PREVIOUS_NOT_FOUND.*removed again/);
    assert.equal(existsSync(keyFile(box.home, 'ivy')), false);
  });

  test('--identity "" is a usage error, never a fallback to the environment or profile', async () => {
    for (const command of [['build'], ['create'], ['jwt'], ['keygen']]) {
      const empty = await box.cards([...command, '--identity', ''], {
        env: { CARDS_IDENTITY: 'someone-else' },
      });
      assert.equal(empty.status, 2, said(empty));
      assert.match(empty.stderr, /^error USAGE \(90001\): --identity is empty\./m);
    }
    assert.equal(existsSync(keyFile(box.home, 'someone-else')), false);
  });

  test('unknown commands and flags in the one error format, with a suggestion', async () => {
    // `cards list` exists now (the admin API); an unknown word still gets the one format.
    const list = await box.cards(['frobnicate']);
    assert.equal(list.status, 2, said(list));
    assert.match(list.stderr, /^error USAGE \(90001\): unknown command 'frobnicate'$/m);
    const typo = await box.cards(['serach', 'alice']);
    assert.match(
      typo.stderr,
      /^error USAGE \(90001\): unknown command 'serach'\n {2}did you mean search\?/,
    );
    const flag = await box.cards(['search', 'alice', '--jsno']);
    assert.equal(flag.status, 2, said(flag));
    assert.match(
      flag.stderr,
      /^error USAGE \(90001\): unknown option '--jsno'\n {2}did you mean --json\?/,
    );
    assert.doesNotMatch(flag.stderr, /^error: /m);
  });

  test('hints that fit: unregister of nobody, revoke of a revoked chain', async () => {
    const nobody = await box.cards(['unregister', '--identity', 'nobody', '--yes']);
    assert.equal(nobody.status, 3, said(nobody));
    assert.doesNotMatch(nobody.stderr, /check the id\b/);
    assert.match(nobody.stderr, /check the identity/);

    const made = await box.cards(['create', '--identity', 'vic', '--new-key', '--json']);
    const id = made.json<{ id: string }>().id;
    assert.equal((await box.cards(['revoke', id, '--yes'])).status, 0);
    const again = await box.cards(['revoke', id, '--yes']);
    assert.equal(again.status, 4, said(again));
    assert.match(again.stderr, /CHAIN_REVOKED/);
    assert.doesNotMatch(again.stderr, /without --previous/);
    assert.match(again.stderr, /nothing to do/);
  });

  test('search shows each key by its distinctive tail and separates chains; inspect aligns', async () => {
    const first = await box.cards(['create', '--identity', 'wes', '--new-key', '--json']);
    const key = first.json<{ snapshot: { publicKey: string } }>().snapshot.publicKey;
    const second = await box.cards(['keygen', '--out', 'wes-2b.pem', '--json']);
    assert.equal(second.status, 0, said(second));
    const other = await box.cards([
      'create',
      '--identity',
      'wes',
      '--key',
      'wes-2b.pem',
      '--new-chain',
    ]);
    assert.equal(other.status, 0, said(other));
    const found = await box.cards(['search', 'wes']);
    assert.equal(found.status, 0, said(found));
    assert.ok(found.stdout.includes(`key …${key.replace(/=+$/, '').slice(-12)}`), found.stdout);
    assert.doesNotMatch(found.stdout, /MCowBQYDK2VwAyEA/);
    assert.equal(found.stdout.match(/── chain \d of 2/g)?.length, 2, found.stdout);

    const id = first.json<{ id: string }>().id;
    const inspected = await box.cards(['inspect', id, '--service-key', server.serviceKey]);
    assert.equal(inspected.status, 0, said(inspected));
    const [header, ...rows] = inspected.stdout.trimEnd().split('\n');
    assert.equal(header?.split(id).length, 2, `the header names the id once: ${header}`);
    // Every labelled row puts its value in the same column.
    const columns = rows
      .filter((row) => row.startsWith('  '))
      .map((row) => /^ {2}\S+ +/.exec(row)?.[0].length);
    assert.equal(new Set(columns).size, 1, inspected.stdout);
  });
});
