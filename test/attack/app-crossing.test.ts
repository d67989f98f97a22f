/**
 * A token of one app on another app's data (docs/stock-sdk.md): under `--app-id`, a stock token
 * whose `iss` names another app, signed by a key the server trusts, is refused on every card,
 * Keyknox and Pythia route (401 20307) and changes nothing; without `--app-id`, the cards are one
 * namespace, and Keyknox is kept apart by the token's app.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { makeCard } from '../http/card-kit.js';

const ARGS = ['--compat', 'virgil', '--quiet', '--no-log'];

async function send(
  server: InProcessServer,
  app: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const token = await server.token('alice', { format: 'stock', appId: app });
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

test('--app-id: a token naming another app is refused on every route and changes nothing', async (t) => {
  const server = await startInProcess({ args: [...ARGS, '--app-id', 'app-a'] });
  t.after(() => server.dispose());
  const card = makeCard('alice');
  assert.equal((await send(server, 'app-a', 'POST', '/card/v5', card.raw)).status, 201);
  const pushed = await send(server, 'app-a', 'PUT', '/keyknox/v1', {
    meta: b64('m'),
    value: b64('v'),
  });
  assert.equal(pushed.status, 200);
  const other = makeCard('alice');
  for (const [method, path, body] of [
    ['POST', '/card/v5', other.raw],
    ['GET', `/card/v5/${card.id}`, undefined],
    ['POST', '/card/v5/actions/search', { identity: 'alice' }],
    ['POST', `/card/v5/actions/revoke/${card.id}`, {}],
    ['GET', '/keyknox/v1', undefined],
    ['PUT', '/keyknox/v1', { meta: b64('m'), value: b64('w') }],
    ['POST', '/keyknox/v1/reset', undefined],
    [
      'POST',
      '/keyknox/v2/push',
      { root: 'r', path: 'p', key: 'k', identities: [], meta: b64('m'), value: b64('v') },
    ],
    ['POST', '/keyknox/v2/pull', { root: 'r', path: 'p', key: 'k' }],
    ['POST', '/keyknox/v2/keys', {}],
    ['POST', '/keyknox/v2/reset', {}],
    ['POST', '/pythia/v1/brainkey', { blinded_password: b64('x') }],
  ] as const) {
    const refused = await send(server, 'app-b', method, path, body);
    assert.deepEqual([refused.status, refused.body.code], [401, 20307], `${method} ${path}`);
  }
  // Nothing changed: the card is live, the other one absent, the blob as pushed.
  const found = await send(server, 'app-a', 'POST', '/card/v5/actions/search', {
    identity: 'alice',
  });
  assert.equal((found.body as unknown as unknown[]).length, 1);
  assert.equal((await send(server, 'app-a', 'GET', `/card/v5/${other.id}`)).status, 404);
  assert.equal((await send(server, 'app-a', 'GET', '/keyknox/v1')).body.value, b64('v'));
});

test("without --app-id: one card namespace, Keyknox kept apart by the token's app", async (t) => {
  const server = await startInProcess({ args: ARGS });
  t.after(() => server.dispose());
  const card = makeCard('alice');
  assert.equal((await send(server, 'app-a', 'POST', '/card/v5', card.raw)).status, 201);
  assert.equal((await send(server, 'app-b', 'GET', `/card/v5/${card.id}`)).status, 200);
  assert.equal(
    (await send(server, 'app-a', 'PUT', '/keyknox/v1', { meta: b64('m'), value: b64('v') })).status,
    200,
  );
  assert.equal((await send(server, 'app-b', 'GET', '/keyknox/v1')).body.value, '');
  assert.equal(
    (await send(server, 'app-b', 'POST', `/card/v5/actions/revoke/${card.id}`, {})).status,
    200,
  );
});
