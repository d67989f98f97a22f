/**
 * Chain relations end to end: `revoke` reports the revoking card the server
 * returned; `get` names what revoked a card and keeps a replaced card's `supersededBy` after its
 * chain was revoked, when this CLI can know it; `seed`'s states come from the same core rules.
 * `node bin/cards.js` against a real `cards serve` on port 0.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

interface Got {
  id: string;
  state: string;
  supersededBy: string | null;
  revokedBy: string | null;
  unknown: string | null;
}
interface Revoked {
  revoked: string;
  method: string;
  revocation: { id: string; card: { content_snapshot: string } } | null;
}

const HEX64 = /^[0-9a-f]{64}$/;

describe('chain relations against cards serve', { concurrency: true }, () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox()));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const create = async (identity: string, previous?: string): Promise<string> => {
    const made = await box.cards([
      'create',
      '--identity',
      identity,
      '--new-key',
      ...(previous ? ['--previous', previous] : []),
      '--json',
    ]);
    assert.equal(made.status, 0, said(made));
    return made.json<{ id: string }>().id;
  };
  const get = async (id: string, env?: Record<string, string>): Promise<Got> => {
    const got = await box.cards(['get', id, '--json'], env ? { env } : {});
    assert.equal(got.status, 0, said(got));
    return got.json<Got>();
  };

  test('revoke by id: the revoking card in --json and text; get names both relations', async () => {
    const first = await create('rel-alice');
    const second = await create('rel-alice', first);
    const live = await get(first);
    assert.deepEqual([live.state, live.supersededBy, live.revokedBy], ['superseded', second, null]);

    const revoked = await box.cards(['revoke', second, '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    const result = revoked.json<Revoked>();
    assert.equal(result.method, 'by-id');
    assert.match(result.revocation?.id ?? '', HEX64, 'the revoking card the server returned');
    const tomb = result.revocation?.id as string;
    assert.equal((await get(tomb)).state, 'revocation');

    // The replaced card keeps its replacement and names the revoking card.
    const old = await get(first);
    assert.equal(old.state, 'revoked');
    assert.equal(old.supersededBy, second);
    assert.equal(old.revokedBy, tomb);
    const last = await get(second);
    assert.deepEqual([last.state, last.supersededBy, last.revokedBy], ['revoked', null, tomb]);
    const text = await box.cards(['get', first]);
    assert.match(text.stdout, new RegExp(`revoked by ${tomb}`));
    assert.match(text.stdout, new RegExp(`superseded by ${second}`));

    // Another CARDS_HOME never saw the revoke: search does not list the chain; said plainly.
    const elsewhere = { CARDS_HOME: join(box.dir, 'other-home') };
    const blind = await get(first, elsewhere);
    assert.deepEqual(
      [blind.state, blind.supersededBy, blind.revokedBy, blind.unknown],
      ['revoked', null, null, 'the revoking card is not listed by search'],
    );
    const plain = await box.cards(['get', first], { env: elsewhere });
    assert.match(plain.stdout, /revoked \(the revoking card is not listed by search\)/);
  });

  test('revoke by id prints the revoking card id in text', async () => {
    const id = await create('rel-bob');
    const revoked = await box.cards(['revoke', id, '--yes']);
    assert.equal(revoked.status, 0, said(revoked));
    assert.match(revoked.stdout, /by revoking card [0-9a-f]{64}/);
  });

  test('revoke --with-card: the revoking card is the one get names', async () => {
    const id = await create('rel-carol');
    const revoked = await box.cards(['revoke', id, '--with-card', '--yes', '--json']);
    assert.equal(revoked.status, 0, said(revoked));
    const tomb = revoked.json<Revoked>().revocation?.id as string;
    assert.match(tomb, HEX64);
    const got = await get(id);
    assert.deepEqual([got.state, got.supersededBy, got.revokedBy], ['revoked', null, tomb]);
  });

  test('seed: states and revoking cards from the core chain rules, as get reads them', async () => {
    writeFileSync(
      join(box.dir, 'chains.json'),
      JSON.stringify({
        version: 1,
        identities: [
          {
            identity: 'rel-dave',
            cards: [
              { name: 'd1' },
              { name: 'd2', replaces: 'd1' },
              { name: 'd3', replaces: 'd2', revoke: true },
              { name: 'd4' },
              { name: 'd5', replaces: 'd4' },
              { name: 'd6', revoke: 'with-card' },
            ],
          },
        ],
      }),
    );
    const seeded = await box.cards(['seed', 'chains.json', '--json']);
    assert.equal(seeded.status, 0, said(seeded));
    const cards = seeded.json<{
      cards: Record<string, { id: string; state: string; revokedBy: string | null }>;
    }>().cards;
    const states = Object.fromEntries(Object.entries(cards).map(([n, c]) => [n, c.state]));
    assert.deepEqual(states, {
      d1: 'revoked',
      d2: 'revoked',
      d3: 'revoked',
      d4: 'superseded',
      d5: 'active',
      d6: 'revoked',
    });
    assert.match(cards.d1?.revokedBy ?? '', HEX64);
    assert.equal(cards.d1?.revokedBy, cards.d3?.revokedBy);
    assert.match(cards.d6?.revokedBy ?? '', HEX64);
    assert.equal(cards.d5?.revokedBy, null);
    for (const [name, card] of Object.entries(cards))
      assert.equal((await get(card.id)).state, card.state, name);
    const revoking = await get(cards.d3?.revokedBy as string);
    assert.equal(revoking.state, 'revocation');
  });
});
