/**
 * Races over a real port: requests that compete for the same chain slot or
 * the same snapshot, sent at once, each on its own connection. Exactly one wins; every loser
 * gets the documented code; a restart shows the same single winner.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64 } from '../../src/core/encoding.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { assertServiceSigned, call, disposer, replyCode, type Reply } from './kit.js';

const PREFIXES = ['/card/v5', '/v5/card', '/card'] as const;
const prefix = (i: number): string => PREFIXES[i % PREFIXES.length] as string;

const tally = (replies: readonly Reply[]): Map<string | number, number> => {
  const counts = new Map<string | number, number>();
  for (const [i, reply] of replies.entries()) {
    const code = replyCode(reply, `request ${i}`);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return counts;
};

test('races: one winner for a chain slot, a revocation, a snapshot; the rest get 40037, 40310, 40027', async (t) => {
  const keep = disposer(t);
  const server = keep(await startInProcess({ args: ['--quiet'] }));
  const a = makeCard('alice');
  assert.equal((await call(server, 'POST', '/card/v5', { body: a.raw })).status, 201);

  // 50 different replacements naming the same previous_card_id.
  const replacements = Array.from({ length: 50 }, () =>
    makeCard('alice', { previousCardId: a.id }),
  );
  const replaced = await Promise.all(
    replacements.map((card, i) => call(server, 'POST', prefix(i), { body: card.raw })),
  );
  assert.deepEqual(
    tally(replaced),
    new Map<string | number, number>([
      [201, 1],
      ['PREVIOUS_SUPERSEDED', 49],
    ]),
  );
  const winner = replacements[replaced.findIndex((r) => r.status === 201)];
  assert.ok(winner);

  // 50 revocations of that chain at once: 25 by id, 25 with a revoking card (spec 4.4, 4.5).
  const revocations = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? call(server, 'POST', `${prefix(i)}/actions/revoke/${winner.id}`, { raw: '{}' })
        : call(server, 'POST', `${prefix(i)}/actions/revoke`, {
            body: makeRevocation('alice', winner.id).raw,
          }),
    ),
  );
  assert.deepEqual(
    tally(revocations),
    new Map<string | number, number>([
      [200, 1],
      ['CHAIN_REVOKED', 49],
    ]),
  );
  const revoking = revocations.find((r) => r.status === 200) as Reply;
  assertServiceSigned(revoking.text, server.serviceKey, 'revoking card');

  // 50 creates of one and the same snapshot.
  const b = makeCard('alice');
  const same = await Promise.all(
    Array.from({ length: 50 }, (_, i) => call(server, 'POST', prefix(i), { body: b.raw })),
  );
  assert.deepEqual(
    tally(same),
    new Map<string | number, number>([
      [201, 1],
      ['SNAPSHOT_NOT_UNIQUE', 49],
    ]),
  );

  // The same single winners after a clean restart.
  await assert.doesNotReject(server.stop());
  const again = keep(await startInProcess({ dir: server.dir, args: ['--quiet'] }));
  assert.match(again.stdout(), /\(4 cards\)/);
  const revokingId = cardIdOf(
    decodeBase64((JSON.parse(revoking.text) as { content_snapshot: string }).content_snapshot) ??
      new Uint8Array(),
  );
  for (const id of [a.id, winner.id]) {
    const got = await call(again, 'GET', `/card/v5/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('x-service-is-superseeded'), 'true', id);
  }
  assert.equal((await call(again, 'GET', `/card/v5/${revokingId}`)).status, 200);
  for (const loser of replacements.filter((card) => card !== winner))
    assert.equal((await call(again, 'GET', `/card/v5/${loser.id}`)).status, 404);
  const found = JSON.parse(
    (await call(again, 'POST', '/card/v5/actions/search', { body: { identity: 'alice' } })).text,
  ) as unknown[];
  assert.equal(found.length, 1, 'only the chain of b is live');
});
