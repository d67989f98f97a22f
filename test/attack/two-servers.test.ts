/**
 * Two `cards serve` on one PostgreSQL, hammered at once: every request that competes for one
 * chain slot, or for a card and its revocation, or for one Keyknox entry, is sent to both
 * servers together, each on its own connection; then the stored state is checked against the
 * spec's rules (Cards spec 2.2 rules 2-3 and section 3: a chain never branches, nothing follows
 * a revoking card; e3kit's Keyknox: of writes from one state exactly one lands, a removed reader
 * stays removed). A card stored through one server is read through the other at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBase64, encodeBase64, utf8 } from '../../src/core/encoding.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { call, replyCode, type Reply } from '../reliability/kit.js';

const tally = (replies: readonly Reply[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const [i, reply] of replies.entries()) {
    const code = String(replyCode(reply, `request ${i}`));
    counts[code] = (counts[code] ?? 0) + 1;
  }
  return counts;
};

const wins = (replies: readonly Reply[]): number =>
  replies.filter((r) => r.status >= 200 && r.status < 300).length;

interface Row {
  id: string;
  identity: string;
  previous_card_id: string | null;
  revoking: boolean;
}

/** The chain rules over every stored row: no branch, nothing after a revoking card. */
function assertChainRules(rows: readonly Row[]): void {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const successors = new Map<string, number>();
  for (const row of rows) {
    if (row.previous_card_id === null) continue;
    const previous = byId.get(row.previous_card_id);
    assert.ok(previous, `${row.id} names a card that is not stored`);
    assert.equal(previous.identity, row.identity, `${row.id}: another identity's card`);
    assert.equal(previous.revoking, false, `${row.id} follows the revoking card ${previous.id}`);
    successors.set(previous.id, (successors.get(previous.id) ?? 0) + 1);
  }
  for (const [id, n] of successors) assert.equal(n, 1, `${id} has ${n} successors`);
}

test('two servers on one PostgreSQL: one winner per chain slot, nothing after a revocation, Keyknox writes from one state', async (t) => {
  const store = await freshStoreUrl();
  const servers: InProcessServer[] = [];
  for (let i = 0; i < 2; i++) {
    const server = await startInProcess({ store, args: ['--quiet', '--no-log'] });
    t.after(() => server.dispose());
    servers.push(server);
  }
  const [one, two] = servers as [InProcessServer, InProcessServer];
  const on = (i: number): InProcessServer => (i % 2 === 0 ? one : two);

  // A card stored through one server is read through the other at once, by id and by search.
  for (let i = 0; i < 20; i++) {
    const card = makeCard('reader');
    assert.equal(
      (await call(on(i), 'POST', '/card/v5', { body: card.raw, identity: 'reader' })).status,
      201,
    );
    const got = await call(on(i + 1), 'GET', `/card/v5/${card.id}`, { identity: 'reader' });
    assert.equal(got.status, 200, `round ${i}: get through the other server`);
    const found = await call(on(i + 1), 'POST', '/card/v5/actions/search', {
      body: { identity: 'reader' },
      identity: 'reader',
    });
    assert.ok(found.text.includes(card.raw.content_snapshot), `round ${i}: search`);
  }

  for (let round = 0; round < 6; round++) {
    const identity = `racer-${round}`;
    const first = makeCard(identity);
    assert.equal((await call(one, 'POST', '/card/v5', { body: first.raw, identity })).status, 201);
    // Replacements, revocations by id and revoking cards of one card, on both servers.
    const requests: Promise<Reply>[] = [];
    for (let i = 0; i < 12; i++) {
      const server = on(i);
      if (i % 3 === 0)
        requests.push(
          call(server, 'POST', '/card/v5', {
            body: makeCard(identity, { previousCardId: first.id }).raw,
            identity,
          }),
        );
      else if (i % 3 === 1)
        requests.push(
          call(server, 'POST', `/card/v5/actions/revoke/${first.id}`, { raw: '{}', identity }),
        );
      else
        requests.push(
          call(server, 'POST', '/card/v5/actions/revoke', {
            body: makeRevocation(identity, first.id).raw,
            identity,
          }),
        );
    }
    const replies = await Promise.all(requests);
    assert.equal(wins(replies), 1, JSON.stringify(tally(replies)));

    // A revoking card and cards naming it as previous, sent together to both servers: the
    // revoking card may land, the cards after it never.
    const tip = makeCard(identity);
    assert.equal((await call(two, 'POST', '/card/v5', { body: tip.raw, identity })).status, 201);
    const revoking = makeRevocation(identity, tip.id);
    const after = await Promise.all([
      call(one, 'POST', '/card/v5/actions/revoke', { body: revoking.raw, identity }),
      ...Array.from({ length: 8 }, (_, i) =>
        call(on(i + 1), 'POST', '/card/v5', {
          body: makeCard(identity, { previousCardId: revoking.id }).raw,
          identity,
        }),
      ),
    ]);
    assert.equal(after[0]?.status, 200, after[0]?.text);
    assert.equal(wins(after.slice(1)), 0, JSON.stringify(tally(after.slice(1))));
  }
  assertChainRules(
    await sql<Row>(store, 'SELECT id, identity, previous_card_id, revoking FROM cards'),
  );

  // Keyknox v1: pushes from one hash on both servers; one lands, and both read it.
  const v1 = async (server: InProcessServer, identity: string, value: string, hash?: string) =>
    call(server, 'PUT', '/keyknox/v1', {
      identity,
      body: { meta: encodeBase64(utf8('m')), value: encodeBase64(utf8(value)) },
      headers: hash === undefined ? {} : { 'service-keyknox-previous-hash': hash },
    });
  for (let round = 0; round < 5; round++) {
    const identity = `v1-${round}`;
    const pulled = await call(one, 'GET', '/keyknox/v1', { identity });
    const hash = pulled.headers.get('service-keyknox-hash') ?? undefined;
    const pushes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => v1(on(i), identity, `value ${i}`, hash)),
    );
    assert.equal(wins(pushes), 1, JSON.stringify(tally(pushes)));
    const won = pushes.find((r) => r.status === 200)!;
    for (const server of servers) {
      const now = await call(server, 'GET', '/keyknox/v1', { identity });
      assert.equal(
        now.headers.get('service-keyknox-hash'),
        won.headers.get('service-keyknox-hash'),
      );
      assert.equal(JSON.parse(now.text).value, JSON.parse(won.text).value);
    }
  }

  // Keyknox v2: the owner's pushes (from the hash it holds) race the removal of a reader; a
  // push that does not name the reader never brings it back.
  const address = { root: 'group', path: 'chat', key: 'epoch' };
  for (let round = 0; round < 6; round++) {
    const owner = `owner-${round}`;
    const push = (server: InProcessServer, identities: string[], value: string, hash?: string) =>
      call(server, 'POST', '/keyknox/v2/push', {
        identity: owner,
        body: {
          ...address,
          identities,
          meta: encodeBase64(utf8('m')),
          value: encodeBase64(utf8(value)),
        },
        headers: hash === undefined ? {} : { 'service-keyknox-previous-hash': hash },
      });
    const created = await push(one, ['eve', 'bob'], 'first');
    assert.equal(created.status, 200, created.text);
    const hash = created.headers.get('service-keyknox-hash')!;
    const raced = await Promise.all([
      call(two, 'POST', '/keyknox/v2/reset', {
        identity: owner,
        body: { ...address, identity: 'eve' },
      }),
      ...Array.from({ length: 6 }, (_, i) => push(on(i), ['bob'], `next ${i}`, hash)),
    ]);
    assert.equal(raced[0]?.status, 200, raced[0]?.text);
    assert.equal(wins(raced.slice(1)), 1, JSON.stringify(tally(raced.slice(1))));
    for (const server of servers) {
      const seen = await call(server, 'POST', '/keyknox/v2/pull', {
        identity: 'eve',
        body: { ...address, identity: owner },
      });
      const entry = JSON.parse(seen.text) as { value: string; identities: string[] };
      assert.equal(entry.value, '', `round ${round}: eve was removed, yet reads the entry`);
      const mine = await call(server, 'POST', '/keyknox/v2/pull', {
        identity: owner,
        body: address,
      });
      assert.deepEqual(
        (JSON.parse(mine.text) as { identities: string[] }).identities.sort(),
        ['bob'],
        `round ${round}: readers`,
      );
    }
  }
  // Every card the registry stored is one it answered for (ids over the wire and in SQL).
  const rows = await sql<{ content: string }>(
    store,
    `SELECT wire::json->>'content_snapshot' AS content FROM cards`,
  );
  for (const { content } of rows) assert.match(cardIdOf(decodeBase64(content)!), /^[0-9a-f]{64}$/);
});
