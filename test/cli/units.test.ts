/**
 * The CLI's pieces in-process: settings precedence, keystore file names, colour rules, the
 * seed planner's checks, minted tokens against the server's verifier, client error mapping.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CardsClient } from '../../src/client/http-client.js';
import { fixedToken, mintingTokens } from '../../src/client/token-source.js';
import { CardsError } from '../../src/core/errors.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { verifyToken } from '../../src/crypto/tokens.js';
import { makeContext } from '../../src/cli/context.js';
import { decodeIdentity, encodeIdentity } from '../../src/cli/keystore.js';
import { colorLevel } from '../../src/cli/output.js';
import { planSeed } from '../../src/cli/seed-plan.js';
import { resolveSettings } from '../../src/cli/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-units-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('settings', () => {
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      version: 1,
      default: 'p',
      profiles: {
        p: { url: 'http://profile:1', identity: 'pat', compat: 'virgil', appKey: 'k.pem' },
        q: { url: 'http://q:2' },
      },
    }),
  );
  const ctx = (env: Record<string, string>) =>
    makeContext({ cwd: dir, env: { CARDS_CONFIG: config, ...env } });

  test('flags > env > profile > defaults, per setting', () => {
    const s = resolveSettings(ctx({ CARDS_URL: 'http://env:3' }), { identity: 'flo' });
    assert.deepEqual([s.url.value, s.url.source], ['http://env:3', 'env']);
    assert.deepEqual([s.identity?.value, s.identity?.source], ['flo', 'flag']);
    assert.deepEqual([s.compat.value, s.compat.source], ['virgil', 'profile']);
    assert.deepEqual([s.db.value, s.db.source], ['./cards.json', 'default']);
    assert.equal(s.wire, PROFILES.virgil);
    assert.deepEqual(s.credential, {
      kind: 'app-key',
      file: join(dir, 'k.pem'),
      source: 'profile',
    });
    const flagged = resolveSettings(ctx({ CARDS_URL: 'http://env:3' }), {
      url: 'http://flag:4',
      profile: 'q',
    });
    assert.equal(flagged.url.value, 'http://flag:4');
    assert.equal(flagged.compat.source, 'default');
    assert.equal(resolveSettings(ctx({ CARDS_PROFILE: 'q' }), {}).url.value, 'http://q:2');
  });

  test('credentials come whole from the first layer that has any; a token beats an app key', () => {
    const s = resolveSettings(ctx({ CARDS_TOKEN: 't0k' }), {});
    assert.deepEqual(s.credential, { kind: 'token', token: 't0k', source: 'env' });
    const f = resolveSettings(ctx({ CARDS_TOKEN: 't0k' }), { appConfig: 'app.json' });
    assert.equal(f.credential?.kind, 'app-config');
    assert.throws(
      () => resolveSettings(ctx({}), { url: 'ftp://x' }),
      (e: unknown) => e instanceof CardsError && e.code === 'USAGE',
    );
  });
});

describe('keystore file names', () => {
  test('encode any identity into one safe, reversible file name', () => {
    for (const identity of [
      'alice',
      'Alice',
      '../etc/passwd',
      '.hidden',
      'a b/c\\d',
      'zoë@例え.jp',
      '%41',
    ]) {
      const name = encodeIdentity(identity);
      assert.match(name, /^[a-z0-9_@+.%A-F-]+$/, identity);
      assert.ok(!name.startsWith('.'), identity);
      assert.equal(decodeIdentity(name), identity);
    }
    assert.notEqual(encodeIdentity('Alice'), encodeIdentity('alice'));
    const long = encodeIdentity('x'.repeat(1024));
    assert.equal(long.length, 65);
    assert.equal(decodeIdentity(long), undefined);
  });
});

describe('colour', () => {
  const level = (env: Record<string, string>, isTTY: boolean, flag?: boolean) =>
    colorLevel(makeContext({ cwd: dir, env, stdout: { write: () => true, isTTY } }), flag);
  test('on a terminal only, off under NO_COLOR, TERM=dumb and --no-color; FORCE_COLOR wins', () => {
    assert.equal(level({}, true), 1);
    assert.equal(level({}, false), 0);
    assert.equal(level({ NO_COLOR: '1' }, true), 0);
    assert.equal(level({ TERM: 'dumb' }, true), 0);
    assert.equal(level({}, true, false), 0);
    assert.equal(level({ FORCE_COLOR: '1' }, false), 1);
  });
});

describe('seed planner', () => {
  const usage = (json: unknown, pattern: RegExp) =>
    assert.throws(
      () => planSeed(json),
      (e: unknown) => e instanceof CardsError && e.code === 'USAGE' && pattern.test(e.message),
    );
  test('orders by dependency and resolves identity refs to their newest card', () => {
    const plan = planSeed({
      version: 1,
      identities: [
        { ref: 'b', identity: 'bob', cards: [{ name: 'b1', extra: { f: '${a.id}' } }] },
        { ref: 'a', identity: 'ann', cards: [{ name: 'a1' }, { name: 'a2', replaces: 'a1' }] },
      ],
    });
    const order = plan.cards.map((c) => c.name);
    assert.ok(order.indexOf('a2') < order.indexOf('b1'));
    assert.ok(order.indexOf('a1') < order.indexOf('a2'));
    assert.deepEqual(plan.cards.find((c) => c.name === 'b1')?.needs, ['a2']);
    const big = planSeed({ version: 1, identities: [{ identity: 'u${n}', count: 3 }] });
    assert.deepEqual(big.cards.map((c) => c.identity).sort(), ['u1', 'u2', 'u3']);
  });
  test('refuses what cannot work, naming the entry', () => {
    usage({ version: 2, identities: [] }, /version/);
    usage(
      { version: 1, identities: [{ identity: 'a', cards: [{ name: 'x' }, { name: 'x' }] }] },
      /used twice/,
    );
    usage(
      { version: 1, identities: [{ identity: 'a', cards: [{ extra: '${nope.id}' }] }] },
      /nope/,
    );
    usage(
      {
        version: 1,
        identities: [
          { identity: 'a', cards: [{ name: 'x' }, { replaces: 'x' }, { replaces: 'x' }] },
        ],
      },
      /replaced by/,
    );
    usage(
      {
        version: 1,
        identities: [{ identity: 'a', cards: [{ name: 'x', revoke: true }, { replaces: 'x' }] }],
      },
      /revoked/,
    );
    usage(
      {
        version: 1,
        identities: [
          { identity: 'a', cards: [{ name: 'x' }] },
          { identity: 'b', cards: [{ replaces: 'x' }] },
        ],
      },
      /another identity/,
    );
    usage(
      {
        version: 1,
        identities: [
          {
            identity: 'a',
            cards: [
              { name: 'x', extra: '${y.id}' },
              { name: 'y', extra: '${x.id}' },
            ],
          },
        ],
      },
      /circle/,
    );
    usage({ version: 1, identities: [{ identity: 'same', count: 2 }] }, /\$\{n\}/);
  });
});

describe('client', () => {
  test('minted EdDSA tokens pass the server verifier; one token per identity is reused', async () => {
    const key = generatePrivateKey();
    let now = Date.now();
    const source = mintingTokens({
      key,
      format: 'jwt',
      ttlSeconds: 1200,
      now: () => now,
      kid: 'k1',
    });
    const token = await source.tokenFor('ann');
    assert.equal(await source.tokenFor('ann'), token);
    const verified = await verifyToken(token, { keys: [{ key: key.publicKey, kid: 'k1' }], now });
    assert.deepEqual([verified.identity, verified.format], ['ann', 'jwt']);
    now += 1200_000;
    assert.notEqual(await source.tokenFor('ann'), token);
  });

  test('Error objects map back to codes: string and number codes, 5xx and non-JSON bodies', async () => {
    const replies: [number, string][] = [
      [404, JSON.stringify({ code: '10001', message: 'gone' })],
      [400, JSON.stringify({ code: 40034, message: 'who?' })],
      [500, JSON.stringify({ code: 10000, message: 'boom' })],
      [418, 'teapot'],
      [401, ''],
    ];
    const server = createServer((req, res) => {
      const [status, body] = replies.shift() ?? [500, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      req.resume();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new CardsClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      profile: PROFILES.service,
      tokens: fixedToken('t'),
    });
    const code = async (): Promise<string> => {
      try {
        await client.getCard('a'.repeat(64));
        return 'ok';
      } catch (err) {
        return err instanceof CardsError ? err.code : String(err);
      }
    };
    assert.deepEqual(
      [await code(), await code(), await code(), await code(), await code()],
      // 418 "teapot": no Error object, so not a Cards service (issue 11 item 17).
      ['CARD_NOT_FOUND', 'IDENTITY_MISMATCH', 'UNREACHABLE', 'NOT_A_SERVICE', 'TOKEN_SIGNATURE'],
    );
    client.close();
    await new Promise((r) => server.close(r));
  });
});
