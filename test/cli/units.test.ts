/**
 * The CLI's pieces in-process: settings precedence, keystore file names, colour rules, the
 * seed planner's checks, minted tokens against the server's verifier, client error mapping.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
import { makeContext } from '../helpers/context.js';
import {
  decodeIdentity,
  encodeIdentity,
  keysDir,
  listKeys,
  removeKey,
  storeKey,
} from '../../src/cli/keystore.js';
import { colorLevel } from '../../src/cli/output.js';
import { planSeed } from '../../src/cli/seed-plan.js';
import { resolveSettings, type ConnectionFlags } from '../../src/cli/settings.js';
import { commandOptions } from './harness.js';

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
  /** The settings `cards get ID FLAGS…` runs with, its flags layered by the one resolver. */
  const settingsOf = async (env: Record<string, string>, flags: string[] = []) =>
    resolveSettings(
      ctx(env),
      await commandOptions<ConnectionFlags>(ctx(env), ['get', 'a'.repeat(64), ...flags]),
    );

  test('flags > env > profile > defaults, per setting', async () => {
    const s = await settingsOf({ CARDS_URL: 'http://env:3' }, ['--identity', 'flo']);
    assert.deepEqual([s.url.value, s.url.source], ['http://env:3', 'env']);
    assert.deepEqual([s.identity?.value, s.identity?.source], ['flo', 'flag']);
    assert.deepEqual([s.compat.value, s.compat.source], ['virgil', 'config']);
    assert.deepEqual([s.db.value, s.db.source], ['./cards.json', 'default']);
    assert.equal(s.wire, PROFILES.virgil);
    assert.deepEqual(s.credential, {
      kind: 'app-key',
      file: join(dir, 'k.pem'),
      source: 'config',
    });
    const flagged = await settingsOf({ CARDS_URL: 'http://env:3' }, [
      '--url',
      'http://flag:4',
      '--profile',
      'q',
    ]);
    assert.equal(flagged.url.value, 'http://flag:4');
    assert.equal(flagged.compat.source, 'default');
    assert.equal((await settingsOf({ CARDS_PROFILE: 'q' })).url.value, 'http://q:2');
  });

  test('credentials come whole from the first layer that has any; a token beats an app key', async () => {
    const s = await settingsOf({ CARDS_TOKEN: 't0k' });
    assert.deepEqual(s.credential, { kind: 'token', token: 't0k', source: 'env' });
    const f = await settingsOf({ CARDS_TOKEN: 't0k' }, ['--app-config', 'app.json']);
    assert.equal(f.credential?.kind, 'app-config');
    await assert.rejects(
      settingsOf({}, ['--url', 'ftp://x']),
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

describe('keystore index', () => {
  test('a hashed file name finds its identity in keys/index.json, written whole (0600)', () => {
    const home = join(dir, 'index-home');
    const long = `${'y'.repeat(300)}@example.com`;
    const file = storeKey(home, long, generatePrivateKey(), false);
    storeKey(home, 'short', generatePrivateKey(), false);
    const index = join(keysDir(home), 'index.json');
    const written = JSON.parse(readFileSync(index, 'utf8')) as {
      version: number;
      identities: Record<string, string>;
    };
    assert.deepEqual(written, { version: 1, identities: { [encodeIdentity(long)]: long } });
    if (process.platform !== 'win32') assert.equal(statSync(index).mode & 0o777, 0o600);
    assert.deepEqual(
      listKeys(home).map((k) => [k.identity, k.file]),
      [
        [long, file],
        ['short', join(keysDir(home), 'short.pem')],
      ],
    );
    assert.equal(removeKey(home, long), true);
    assert.deepEqual(JSON.parse(readFileSync(index, 'utf8')).identities, {});
    assert.deepEqual(
      listKeys(home).map((k) => k.identity),
      ['short'],
    );
  });

  test('a keystore that kept the identity beside the key (<hash>.identity) is still listed', () => {
    const home = join(dir, 'sidecar-home');
    const long = 'z'.repeat(400);
    const file = storeKey(home, long, generatePrivateKey(), false);
    rmSync(join(keysDir(home), 'index.json'));
    writeFileSync(file.replace(/\.pem$/, '.identity'), long);
    assert.deepEqual(
      listKeys(home).map((k) => k.identity),
      [long],
    );
  });

  test('an index that cannot be read is refused, not overwritten', () => {
    const home = join(dir, 'broken-home');
    storeKey(home, 'a', generatePrivateKey(), false);
    writeFileSync(join(keysDir(home), 'index.json'), '{"version": 9}');
    assert.throws(
      () => storeKey(home, 'q'.repeat(300), generatePrivateKey(), false),
      (e: unknown) => e instanceof CardsError && e.code === 'CONFIG_INVALID',
    );
    assert.equal(readFileSync(join(keysDir(home), 'index.json'), 'utf8'), '{"version": 9}');
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
      // 418 "teapot": no Error object, so not a Cards service.
      ['CARD_NOT_FOUND', 'IDENTITY_MISMATCH', 'UNREACHABLE', 'NOT_A_SERVICE', 'TOKEN_SIGNATURE'],
    );
    client.close();
    await new Promise((r) => server.close(r));
  });
});
