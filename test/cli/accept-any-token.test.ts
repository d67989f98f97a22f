/**
 * `cards serve --accept-any-token` (port 0, loopback) and the real CLI: a token signed by a key
 * the server never saw is accepted for its `sub` (both token formats), and the card is stored
 * under that identity; a malformed or expired token is still refused with its usual code; the
 * banner says so loudly; a non-loopback --host is refused before anything is made.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CardsError } from '../../src/core/errors.js';
import { makeContext } from '../helpers/context.js';
import { serverOptions, type ServeFlags } from '../../src/cli/commands/serve/settings.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { silentLogger } from '../../src/http/request-log.js';
import { startServing } from '../../src/server/start.js';
import { makeTempDir } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';
import { commandOptions, said, type Sandbox } from './harness.js';
import { serverInSandbox, type SandboxServer } from './server-sandbox.js';

describe('cards serve --accept-any-token', () => {
  let server: SandboxServer;
  let box: Sandbox;
  before(async () => ({ server, box } = await serverInSandbox({ args: ['--accept-any-token'] })));
  after(() => Promise.all([server.dispose(), box.cleanup()]));

  const create = (token: string, identity: string) =>
    fetch(`${server.url}/card/v5`, {
      method: 'POST',
      headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(makeCard(identity).raw),
    });

  test('the banner says it, loudly, on the line after the address', () => {
    const lines = server.stdout().split('\n');
    assert.match(lines[0] ?? '', /^listening on /);
    assert.match(
      lines[1] ?? '',
      /^WARNING: --accept-any-token: ANY well-formed token is accepted for its sub, signatures NOT checked/,
    );
    assert.match(server.stdout(), /^tokens: ANY well-formed token/m);
  });

  test('a token of a key nobody trusts is accepted for its sub, both formats', async () => {
    const stranger = generatePrivateKey();
    const now = Date.now();
    const eddsa = mintToken({ key: stranger, identity: 'dev', now, ttlSeconds: 60 });
    assert.equal((await create(eddsa, 'dev')).status, 201);
    const stock = mintToken({
      key: stranger,
      identity: 'dev2',
      now,
      ttlSeconds: 60,
      format: 'stock',
      appId: 'x',
      kid: 'y',
    });
    assert.equal((await create(stock, 'dev2')).status, 201);
    // The identity is the token's: a card for another identity is refused as ever.
    const other = await create(eddsa, 'someone-else');
    assert.equal(other.status, 400);
    assert.equal(((await other.json()) as { code: string }).code, '40034');
    // The CLI works with any token too.
    const r = await box.cards(['search', 'dev', '--token', eddsa]);
    assert.equal(r.status, 0, said(r));
    assert.match(r.stdout, /dev/);
  });

  test('malformed and expired tokens are refused with their usual codes', async () => {
    const expired = mintToken({
      key: generatePrivateKey(),
      identity: 'dev',
      now: Date.now() - 3_600_000,
      ttlSeconds: 60,
    });
    for (const [token, code] of [
      ['not-a-token', '20302'],
      ['a.b.c', '20302'],
      [expired, '20304'],
    ] as const) {
      const response = await create(token, 'dev');
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
  });
});

test('--accept-any-token on a non-loopback host is refused before anything is made', async () => {
  const dir = makeTempDir();
  const ctx = makeContext({ cwd: dir, env: {} });
  const flags = await commandOptions<ServeFlags>(ctx, [
    'serve',
    '--accept-any-token',
    '--host',
    '0.0.0.0',
    '--port',
    '0',
    '--memory',
  ]);
  await assert.rejects(
    startServing(serverOptions(ctx, flags, 'test'), silentLogger),
    (err: unknown) => {
      assert.ok(err instanceof CardsError);
      assert.equal(err.code, 'USAGE');
      assert.match(err.message, /only on a loopback --host/);
      return true;
    },
  );
});
