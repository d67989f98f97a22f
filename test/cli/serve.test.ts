/**
 * `cards serve` flags, environment, keys and output, as a user runs it: its options and start
 * in this process (in-process-server.ts, a real port 0), its refusals through the executable's
 * funnel, and the exit status of a usage error from a `bin/cards.js` process; temp dirs.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generatePrivateKey, parsePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeTempDir, removeTempDirs, runServeToExit, type Served } from '../helpers/server.js';

after(removeTempDirs);

const search = async (server: Served, token: string, scheme = 'Service'): Promise<number> =>
  (
    await fetch(`${server.url}/card/v5/actions/search`, {
      method: 'POST',
      headers: { authorization: `${scheme} ${token}`, 'content-type': 'application/json' },
      body: '{"identity":"alice"}',
    })
  ).status;

const tokenOf = async (key = generatePrivateKey()): Promise<string> =>
  mintToken({ key, identity: 'alice', now: Date.now(), ttlSeconds: 600 });

describe('cards serve: flags and environment', () => {
  test('--help explains the flags, the environment and gives examples', async () => {
    const help = await runServeToExit(['--help']);
    assert.equal(help.code, 0);
    for (const word of [
      '--port',
      '--db',
      '--service-key',
      '--jwt-key',
      '--compat',
      '--no-cors',
      '--quiet',
      '--log-format',
      'CARDS_PORT',
      'listening on',
      'Examples:',
      '/health',
      'journal',
    ])
      assert.ok(help.stdout.includes(word), `help mentions ${word}`);
  });

  test('usage errors exit 2', async () => {
    for (const args of [
      ['--port', 'abc'],
      ['--port', '70000'],
      ['--compat', 'nope'],
      ['--max-connections', '0'],
      ['--bogus'],
    ]) {
      // The exit status as the shell sees it: a process (the other refusals run in-process).
      const result = await runServeToExit(['--db', join(makeTempDir(), 'c.json'), ...args], {
        process: true,
      });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    }
  });

  test('a port in use exits 2 with a message naming the port', async (t) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => blocker.close());
    const port = (blocker.address() as { port: number }).port;
    const result = await runServeToExit([
      '--port',
      String(port),
      '--db',
      join(makeTempDir(), 'c.json'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, new RegExp(`Port ${port} is in use`));
  });

  test('a failed start creates nothing: no store, no folder, no key, no lock', async (t) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'bad.pem'), 'not a key');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => blocker.close());
    const busy = String((blocker.address() as { port: number }).port);
    for (const [name, args, env] of [
      ['a bad --jwt-key', ['--jwt-key', 'not-a-key'], {}],
      ['a missing --service-key', ['--service-key', join(dir, 'nope.pem')], {}],
      ['a bad --service-key', ['--service-key', join(dir, 'bad.pem')], {}],
      ['a bad CARDS_SERVICE_KEY_FILE', [], { CARDS_SERVICE_KEY_FILE: join(dir, 'bad.pem') }],
      ['a port in use', ['--port', busy], {}],
    ] as const) {
      const folder = join(dir, 'new', 'deeper');
      const result = await runServeToExit(
        ['--port', '0', '--db', join(folder, 'c.json'), ...args],
        {
          env,
        },
      );
      assert.notEqual(result.code, 0, `${name}: ${result.stderr}`);
      assert.ok(!existsSync(join(dir, 'new')), `${name}: nothing made (${result.stderr})`);
      const existing = makeTempDir();
      await runServeToExit(['--port', '0', '--db', join(existing, 'c.json'), ...args], { env });
      assert.deepEqual(readdirSync(existing), [], `${name}: nothing made in an existing folder`);
    }
  });

  test('CARDS_SERVICE_KEY_FILE is the private key serve signs with; CARDS_SERVICE_KEY (a public key, for inspect) is not it', async (t) => {
    const dir = makeTempDir();
    const key = generatePrivateKey();
    writeFileSync(join(dir, 'svc.pem'), key.toPem());
    const server = await startInProcess({
      dir: makeTempDir(),
      env: {
        CARDS_SERVICE_KEY_FILE: join(dir, 'svc.pem'),
        CARDS_SERVICE_KEY: generatePrivateKey().publicKey.toBase64(),
      },
      args: ['--quiet'],
    });
    t.after(() => server.dispose());
    assert.equal(server.serviceKey, key.publicKey.toBase64());
    // The old meaning, a private key file in CARDS_SERVICE_KEY, is refused rather than ignored:
    // serve would otherwise sign with a new key of its own.
    const old = await runServeToExit(['--port', '0', '--db', join(makeTempDir(), 'c.json')], {
      env: { CARDS_SERVICE_KEY: join(dir, 'svc.pem') },
    });
    assert.equal(old.code, 2, old.stderr);
    assert.match(old.stderr, /USAGE.*CARDS_SERVICE_KEY_FILE/s);
  });

  test('every flag from the environment; flags win', async (t) => {
    const dir = makeTempDir();
    const server = await startInProcess({
      dir,
      env: {
        CARDS_PORT: '0',
        CARDS_HOST: '127.0.0.1',
        CARDS_DB: join(dir, 'env.json'),
        CARDS_COMPAT: 'virgil',
        CARDS_QUIET: '1',
      },
    });
    t.after(() => server.dispose());
    assert.match(server.stdout(), /^store: .*env\.json \(0 cards\)$/m);
    assert.match(server.stdout(), /^profile: virgil /m);
    assert.equal(await search(server, await server.token('alice'), 'Virgil'), 200);
    const flagWins = await startInProcess({
      dir: makeTempDir(),
      args: ['--compat', 'service'],
      env: { CARDS_COMPAT: 'virgil' },
    });
    t.after(() => flagWins.dispose());
    assert.match(flagWins.stdout(), /^profile: service /m);
  });

  test('request log lines: text by default, JSON with --log-format json, none with --quiet', async () => {
    for (const [args, check] of [
      [
        [],
        (line: string) =>
          assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z GET \/health 200 [\d.]+ms$/),
      ],
      [
        ['--log-format', 'json'],
        (line: string) => {
          const entry = JSON.parse(line) as Record<string, unknown>;
          assert.equal(entry.method, 'GET');
          assert.equal(entry.path, '/health');
          assert.equal(entry.status, 200);
          assert.equal(typeof entry.ms, 'number');
        },
      ],
      [['--quiet'], undefined],
    ] as const) {
      const server = await startInProcess({ args });
      await fetch(`${server.url}/health?x=1`);
      // Closes as `cards serve` does on SIGINT; rejects when closing fails.
      await server.stop();
      const stderr = server.stderr();
      await server.dispose();
      const lines = stderr.split('\n').filter((l) => l.includes('/health'));
      if (check) {
        assert.equal(lines.length, 1, stderr);
        check(lines[0] as string);
      } else assert.deepEqual(lines, []);
    }
  });
});

describe('cards serve: keys', () => {
  test('service and app keys are made on first start with mode 0600, and kept', async (t) => {
    const server = await startInProcess();
    t.after(() => server.dispose());
    for (const path of [server.paths.serviceKey, server.paths.appKey]) {
      assert.equal(statSync(path).mode & 0o777, 0o600, path);
      assert.match(readFileSync(path, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    }
    const serviceKey = parsePrivateKey(readFileSync(server.paths.serviceKey, 'utf8'));
    assert.equal(serviceKey.publicKey.toBase64(), server.serviceKey);
    assert.match(
      server.stdout(),
      /^tokens: signed by the local app key .*cards\.json\.app-key\.pem/m,
    );
  });

  test('--service-key: PEM or base64 DER; a missing file exits 3, a bad one 2', async (t) => {
    const dir = makeTempDir();
    const key = generatePrivateKey();
    writeFileSync(join(dir, 'svc.pem'), key.toPem());
    writeFileSync(join(dir, 'svc.b64'), key.toBase64());
    writeFileSync(join(dir, 'bad.pem'), 'not a key');
    for (const file of ['svc.pem', 'svc.b64']) {
      const server = await startInProcess({
        dir: makeTempDir(),
        args: ['--service-key', join(dir, file), '--quiet'],
      });
      t.after(() => server.dispose());
      assert.equal(server.serviceKey, key.publicKey.toBase64());
    }
    const missing = await runServeToExit([
      '--port',
      '0',
      '--db',
      join(dir, 'c.json'),
      '--service-key',
      join(dir, 'nope.pem'),
    ]);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /FILE_NOT_FOUND/);
    const bad = await runServeToExit([
      '--port',
      '0',
      '--db',
      join(dir, 'c.json'),
      '--service-key',
      join(dir, 'bad.pem'),
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /KEY_FORMAT/);
  });

  test('--jwt-key: inline, PEM, JWK, JWKS files, CARDS_JWT_KEY list; no local app key then', async (t) => {
    const dir = makeTempDir();
    const keys = Array.from({ length: 5 }, () => generatePrivateKey());
    const [inline, pem, jwk, jwks, env2] = keys as [
      (typeof keys)[0],
      (typeof keys)[0],
      (typeof keys)[0],
      (typeof keys)[0],
      (typeof keys)[0],
    ];
    writeFileSync(join(dir, 'k.pem'), pem.publicKey.toPem());
    writeFileSync(
      join(dir, 'k.jwk'),
      JSON.stringify({ ...jwk.publicKey.keyObject.export({ format: 'jwk' }), kid: 'one' }),
    );
    writeFileSync(
      join(dir, 'k.jwks'),
      JSON.stringify({
        keys: [
          { kty: 'RSA', n: 'x', e: 'AQAB' },
          jwks.publicKey.keyObject.export({ format: 'jwk' }),
        ],
      }),
    );
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir);
    const server = await startInProcess({
      dir: storeDir,
      args: [
        '--jwt-key',
        inline.publicKey.toBase64(),
        '--jwt-key',
        join(dir, 'k.pem'),
        join(dir, 'k.jwk'),
        join(dir, 'k.jwks'),
        '--quiet',
      ],
    });
    t.after(() => server.dispose());
    assert.match(server.stdout(), /^tokens: 4 trusted keys from --jwt-key$/m);
    for (const key of [inline, pem, jwk, jwks])
      assert.equal(await search(server, await tokenOf(key)), 200);
    assert.equal(await search(server, await tokenOf()), 401);
    assert.throws(() => statSync(server.paths.appKey), /ENOENT/);

    const fromEnv = await startInProcess({
      env: { CARDS_JWT_KEY: `${env2.publicKey.toBase64()},${join(dir, 'k.pem')}` },
      args: ['--quiet'],
    });
    t.after(() => fromEnv.dispose());
    assert.equal(await search(fromEnv, await tokenOf(env2)), 200);
    assert.equal(await search(fromEnv, await tokenOf(pem)), 200);

    for (const value of ['not-a-key', join(dir, 'k.jwks').replace('jwks', 'nope')]) {
      const bad = await runServeToExit([
        '--port',
        '0',
        '--db',
        join(dir, 'c.json'),
        '--jwt-key',
        value,
      ]);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /KEY_FORMAT/);
    }
  });

  // With x = 01 00…00 (a small-order point) OpenSSL verifies R = 01 00…00,
  // S = 0 over any message, so such a key would take a forged token for any identity. Every
  // form a key comes in must be refused at start, before anything listens.
  test('--jwt-key: a small-order or non-canonical point is refused at start in every form', async () => {
    const dir = makeTempDir();
    const points = [
      `01${'00'.repeat(31)}`, // the identity point: a known forgery
      `c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a`, // order 8
      `${'ed'}${'ff'.repeat(30)}7f`, // y = p, non-canonical
      `${'f0'}${'ff'.repeat(31)}`, // y = p + 3 with the sign bit set, non-canonical
    ];
    for (const [i, point] of points.entries()) {
      const raw = Buffer.from(point, 'hex');
      const x = raw.toString('base64url');
      const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
      const pem = `-----BEGIN PUBLIC KEY-----\n${spki.toString('base64')}\n-----END PUBLIC KEY-----\n`;
      writeFileSync(join(dir, `k${i}.jwk`), JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x }));
      writeFileSync(
        join(dir, `k${i}.jwks`),
        JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: 'k' }] }),
      );
      writeFileSync(join(dir, `k${i}.pem`), pem);
      const forms = [
        join(dir, `k${i}.jwk`),
        join(dir, `k${i}.jwks`),
        join(dir, `k${i}.pem`),
        spki.toString('base64'),
      ];
      for (const value of forms) {
        const bad = await runServeToExit(
          ['--port', '0', '--db', join(dir, 'c.json'), '--jwt-key', value],
          { timeoutMs: 8000 },
        );
        assert.equal(bad.code, 2, `${point} as ${value}: ${bad.stderr}`);
        assert.match(bad.stderr, /KEY_FORMAT/);
        assert.match(bad.stderr, /small-order|non-canonical/, bad.stderr);
      }
    }
  });
});
