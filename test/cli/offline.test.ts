/**
 * The offline commands end to end as subprocesses: keygen, key, build, inspect, jwt, config,
 * init (flags), and the usage, not-found, refused, verification and file-system exit statuses.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64, encodeBase64 } from '../../src/core/encoding.js';
import { generatePrivateKey, parsePublicKey } from '../../src/crypto/keys.js';
import { verifyToken } from '../../src/crypto/tokens.js';
import { said, sandbox, type Sandbox } from './harness.js';

interface Built {
  id: string;
  card: {
    content_snapshot: string;
    signatures: { signer: string; signature: string; snapshot?: string }[];
  };
  snapshot: {
    identity: string;
    publicKey: string;
    previousCardId: string | null;
    createdAt: number;
    extras: Record<string, string>;
  };
}

describe('offline commands', { concurrency: true }, () => {
  let box: Sandbox;
  before(() => {
    box = sandbox();
  });
  after(() => box.cleanup());

  test('keygen stores a key per identity (0600 in a 0700 folder), refuses to overwrite, --force replaces', async () => {
    const first = await box.cards(['keygen', '--identity', 'Zoë/../x', '--json']);
    assert.equal(first.status, 0, said(first));
    const made = first.json<{ identity: string; file: string; publicKey: string }>();
    assert.equal(made.identity, 'Zoë/../x');
    assert.ok(made.file.startsWith(join(box.home, 'keys') + '/'), made.file);
    assert.ok(!made.file.slice(join(box.home, 'keys').length + 1).includes('/'));
    assert.equal(statSync(made.file).mode & 0o777, 0o600);
    assert.equal(statSync(join(box.home, 'keys')).mode & 0o777, 0o700);
    assert.equal(parsePublicKey(made.publicKey).toBase64(), made.publicKey);

    const again = await box.cards(['keygen', '--identity', 'Zoë/../x']);
    assert.equal(again.status, 4, said(again));
    assert.match(again.stderr, /FILE_EXISTS \(90003\)/);
    assert.match(again.stderr, /--force/);
    assert.equal(again.stdout, '');

    const forced = await box.cards(['keygen', '--identity', 'Zoë/../x', '--force', '--json']);
    assert.equal(forced.status, 0, said(forced));
    assert.notEqual(forced.json<{ publicKey: string }>().publicKey, made.publicKey);

    const listed = await box.cards(['key', 'list', '--json']);
    assert.ok(
      listed.json<{ keys: { identity: string }[] }>().keys.some((k) => k.identity === 'Zoë/../x'),
    );
    const pub = await box.cards(['key', 'public', '--identity', 'Zoë/../x']);
    assert.equal(pub.stdout.trim(), forced.json<{ publicKey: string }>().publicKey);
  });

  test('keygen --out writes PEM PKCS#8 that `key public` reads; without identity or --out it is a usage error', async () => {
    const made = await box.cards(['keygen', '--out', 'k.pem', '--json']);
    assert.equal(made.status, 0, said(made));
    const pem = readFileSync(join(box.dir, 'k.pem'), 'utf8');
    assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
    const pub = await box.cards(['key', 'public', 'k.pem', '--json']);
    assert.equal(
      pub.json<{ publicKey: string }>().publicKey,
      made.json<{ publicKey: string }>().publicKey,
    );
    const usage = await box.cards(['keygen']);
    assert.equal(usage.status, 2, said(usage));
    assert.match(usage.stderr, /USAGE \(90001\).*\n.*cards keygen --identity/);
    const badKey = join(box.dir, 'bad.pem');
    writeFileSync(badKey, 'not a key');
    const refused = await box.cards(['key', 'public', badKey]);
    assert.equal(refused.status, 2, said(refused));
    assert.match(refused.stderr, /KEY_FORMAT/);
  });

  test('build signs offline; inspect verifies self, --trust signers, extras and the id; tampering exits 5', async () => {
    const app = generatePrivateKey();
    writeFileSync(join(box.dir, 'app.pem'), app.toPem());
    const built = await box.cards([
      'build',
      '--identity',
      'bob',
      '--new-key',
      '--created-at',
      '1700000000',
      '--signer',
      'app=app.pem',
      '--extra',
      'app={"role":"admin"}',
      '--extra',
      '{"device":"phone"}',
      '--json',
    ]);
    assert.equal(built.status, 0, said(built));
    const result = built.json<Built>();
    assert.equal(result.id, cardIdOf(decodeBase64(result.card.content_snapshot) as Uint8Array));
    assert.equal(result.snapshot.createdAt, 1700000000);
    assert.deepEqual(
      result.card.signatures.map((s) => s.signer),
      ['self', 'app'],
    );
    assert.deepEqual(result.snapshot.extras, {
      self: '{"device":"phone"}',
      app: '{"role":"admin"}',
    });
    assert.ok(
      result.card.signatures.every((s) => s.signature.startsWith('MFEwDQYJYIZIAWUDBAIDBQAE')),
    );

    // Text output is the wire JSON itself, ready for `cards publish -` or `cards inspect -`.
    const plain = await box.cards(['build', '--identity', 'bob', '--created-at', '1700000001']);
    const wire = JSON.parse(plain.stdout) as Built['card'];
    assert.equal(typeof wire.content_snapshot, 'string');

    const ok = await box.cards(
      ['inspect', '-', '--trust', `app=${app.publicKey.toBase64()}`, '--json'],
      { input: JSON.stringify(result) },
    );
    assert.equal(ok.status, 0, said(ok));
    const report = ok.json<{
      ok: boolean;
      id: string;
      expectedId: string;
      signatures: { signer: string; status: string }[];
    }>();
    assert.equal(report.ok, true);
    assert.equal(report.expectedId, result.id);
    assert.deepEqual(
      report.signatures.map((s) => [s.signer, s.status]),
      [
        ['self', 'valid'],
        ['app', 'valid'],
      ],
    );

    const untrusted = await box.cards(['inspect', '-', '--json'], { input: plain.stdout });
    assert.equal(untrusted.status, 0, said(untrusted));

    const tampered = structuredClone(result.card);
    const snap = JSON.parse(
      Buffer.from(tampered.content_snapshot, 'base64').toString('utf8'),
    ) as Record<string, unknown>;
    snap.identity = 'mallory';
    snap.version = '4.0';
    tampered.content_snapshot = encodeBase64(Buffer.from(JSON.stringify(snap)));
    const wrongKey = generatePrivateKey().publicKey.toBase64();
    const bad = await box.cards(['inspect', '-', '--trust', `app=${wrongKey}`, '--json'], {
      input: JSON.stringify(tampered),
    });
    assert.equal(bad.status, 5, said(bad));
    const badReport = bad.json<{ ok: boolean; violations: { code: string }[] }>();
    assert.equal(badReport.ok, false);
    assert.deepEqual(
      badReport.violations.map((v) => v.code),
      ['VERSION_INVALID'],
    );
    assert.match(bad.stderr, /VERIFICATION_FAILED \(90006\)/);

    const fixed = structuredClone(result.card);
    snap.version = '5.0';
    fixed.content_snapshot = encodeBase64(Buffer.from(JSON.stringify(snap)));
    const forged = await box.cards(['inspect', '-'], { input: JSON.stringify(fixed) });
    assert.equal(forged.status, 5, said(forged));
    assert.match(forged.stdout, /self +invalid/);
  });

  test('build refuses what the service would: bad --previous, unknown --extra signer, missing key', async () => {
    const prev = await box.cards([
      'build',
      '--identity',
      'carol',
      '--new-key',
      '--previous',
      'not-an-id',
    ]);
    assert.equal(prev.status, 4, said(prev));
    assert.match(prev.stderr, /PREVIOUS_ID_INVALID \(40014\)/);
    const extra = await box.cards(['build', '--identity', 'carol', '--extra', 'nobody={}']);
    assert.equal(extra.status, 2, said(extra));
    const missing = await box.cards(['build', '--identity', 'nokey']);
    assert.equal(missing.status, 3, said(missing));
    assert.match(
      missing.stderr,
      /FILE_NOT_FOUND \(90004\)[^\n]*\n +run `cards keygen --identity nokey` first/,
    );
    const noFile = await box.cards(['inspect', 'nope.json']);
    assert.equal(noFile.status, 3, said(noFile));
    const tooLong = await box.cards([
      'build',
      '--identity',
      'carol',
      '--new-key',
      '--extra',
      JSON.stringify('x'.repeat(1100)),
    ]);
    assert.equal(tooLong.status, 4, said(tooLong));
    assert.match(tooLong.stderr, /EXTRA_SNAPSHOT_TOO_LONG/);
  });

  test('jwt mints an EdDSA token from --app-key and a stock VEDS512 token from --app-config', async () => {
    const app = generatePrivateKey();
    writeFileSync(join(box.dir, 'jwt-app.pem'), app.toPem());
    const minted = await box.cards([
      'jwt',
      '--identity',
      'dave',
      '--app-key',
      'jwt-app.pem',
      '--ttl',
      '20m',
      '--json',
    ]);
    assert.equal(minted.status, 0, said(minted));
    const token = minted.json<{
      token: string;
      expiresAt: number;
      issuedAt: number;
      format: string;
    }>();
    assert.equal(token.expiresAt - token.issuedAt, 1200);
    const verified = await verifyToken(token.token, {
      keys: [{ key: app.publicKey }],
      now: Date.now(),
    });
    assert.equal(verified.identity, 'dave');
    assert.equal(verified.format, 'jwt');

    writeFileSync(
      join(box.dir, 'app.json'),
      JSON.stringify({ APP_ID: 'a1b2', APP_KEY_ID: 'k9', APP_KEY: app.toBase64() }),
    );
    const stock = await box.cards([
      'jwt',
      '--identity',
      'dave',
      '--compat',
      'virgil',
      '--app-config',
      'app.json',
    ]);
    assert.equal(stock.status, 0, said(stock));
    const header = JSON.parse(
      Buffer.from(stock.stdout.trim().split('.')[0] as string, 'base64url').toString(),
    ) as Record<string, string>;
    assert.deepEqual(header, { alg: 'VEDS512', kid: 'k9', typ: 'JWT', cty: 'virgil-jwt;v=1' });
    const stockVerified = await verifyToken(stock.stdout.trim(), {
      keys: [{ key: app.publicKey }],
      now: Date.now(),
      appId: 'a1b2',
      appKeyId: 'k9',
    });
    assert.equal(stockVerified.identity, 'dave');

    const none = await box.cards(['jwt', '--identity', 'dave']);
    assert.equal(none.status, 7, said(none));
    assert.match(none.stderr, /CREDENTIALS_MISSING \(90011\)/);
    const badTtl = await box.cards([
      'jwt',
      '--identity',
      'dave',
      '--app-key',
      'jwt-app.pem',
      '--ttl',
      'soon',
    ]);
    assert.equal(badTtl.status, 2, said(badTtl));
  });

  test('usage errors exit 2; --help shows examples; --json output is one document', async () => {
    const unknown = await box.cards(['create', '--bogus']);
    assert.equal(unknown.status, 2, said(unknown));
    const compat = await box.cards(['get', 'x', '--compat', 'other']);
    assert.equal(compat.status, 2, said(compat));
    for (const command of [
      'keygen',
      'build',
      'create',
      'get',
      'search',
      'revoke',
      'unregister',
      'inspect',
      'seed',
      'init',
      'jwt',
      'publish',
    ]) {
      const help = await box.cards([command, '--help']);
      assert.equal(help.status, 0, said(help));
      assert.match(help.stdout, /Examples:\n {2}\$ cards /, command);
    }
  });

  test('a service URL with a user or password is a usage error that shows neither', async () => {
    const kept = join(box.dir, 'userinfo-config.json');
    for (const [args, env] of [
      [
        ['search', 'alice', '--url', 'http://user:s3cret@127.0.0.1:1', '--token', 't', '--debug'],
        {},
      ],
      [['get', 'a'.repeat(64), '--token', 't'], { CARDS_URL: 'https://:s3cret@cards.example' }],
      // Kept in a profile, it would be refused by every command after.
      [['config', 'set', 'url', 'http://user:s3cret@127.0.0.1:1'], { CARDS_CONFIG: kept }],
    ] as const) {
      const refused = await box.cards(args, { env });
      assert.equal(refused.status, 2, said(refused));
      assert.match(refused.stderr, /USAGE.*with a user or password/);
      assert.doesNotMatch(refused.stdout + refused.stderr, /s3cret/);
    }
    assert.equal(existsSync(kept), false, 'no profile keeps such a URL');
  });

  test("admin commands' --help lists the flags they use, none of a card connection's", async () => {
    for (const command of [
      ['list'],
      ['keyknox'],
      ['history'],
      ['reset'],
      ['status'],
      ['key', 'log'],
      ['open'],
      ['requests'],
      ['faults', 'add'],
      ['faults', 'list'],
      ['faults', 'clear'],
      ['snapshot', 'save'],
      ['snapshot', 'restore'],
      ['export'],
      ['import'],
    ]) {
      const help = await box.cards([...command, '--help']);
      assert.equal(help.status, 0, said(help));
      const flags = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]);
      for (const used of ['--url', '--db'])
        assert.ok(flags.includes(used), `${command.join(' ')} lists ${used}`);
      if (command[0] !== 'open')
        for (const used of ['--admin-token', '--timeout'])
          assert.ok(flags.includes(used), `${command.join(' ')} lists ${used}`);
      for (const ignored of ['--token', '--app-key', '--app-config', '--compat'])
        assert.ok(!flags.includes(ignored), `${command.join(' ')} does not list ${ignored}`);
      // requests and faults add have an --identity of their own: a filter.
      if (!['requests', 'faults'].includes(command[0] as string))
        assert.ok(!flags.includes('--identity'), `${command.join(' ')} does not list --identity`);
    }
    // log audit reads cards through the card routes too: it takes a card connection as well.
    const audit = await box.cards(['log', 'audit', '--help']);
    for (const used of ['--url', '--token', '--app-key', '--admin-token'])
      assert.match(audit.stdout, new RegExp(`^ {2}${used} `, 'm'), `log audit lists ${used}`);
  });

  test('a file-system refusal exits 1 with the path, not a stack trace', async () => {
    const file = join(box.dir, 'not-a-folder');
    writeFileSync(file, '');
    const r = await box.cards(['keygen', '--identity', 'x'], { env: { CARDS_HOME: file } });
    assert.equal(r.status, 1, said(r));
    assert.match(r.stderr, /^error (ENOTDIR|EEXIST): [a-z]/);
    assert.doesNotMatch(r.stderr, /^error (\w+): \1:/, 'the code once');
    assert.doesNotMatch(r.stderr, /internal error/);
  });

  test('init writes a profile from flags without a terminal; config shows each setting with its source', async () => {
    const cfgDir = join(box.dir, 'cfg');
    mkdirSync(cfgDir);
    const env = { CARDS_CONFIG: join(cfgDir, 'config.json') };
    const written = await box.cards(
      [
        'init',
        '--profile',
        'prod',
        '--url',
        'http://10.1.2.3:9000',
        '--identity',
        'erin',
        '--compat',
        'virgil',
        '--app-key',
        'app.pem',
        '--json',
      ],
      { env },
    );
    assert.equal(written.status, 0, said(written));
    const init = written.json<{ isDefault: boolean; settings: Record<string, string> }>();
    assert.equal(init.isDefault, true);
    assert.equal(init.settings.appKey, join(box.dir, 'app.pem'));
    assert.equal(statSync(join(cfgDir, 'config.json')).mode & 0o777, 0o600);
    const again = await box.cards(['init', '--profile', 'prod', '--url', 'http://x:1'], { env });
    assert.equal(again.status, 4, said(again));

    const shown = await box.cards(['config', '--json'], {
      env: { ...env, CARDS_URL: 'http://127.0.0.1:7000' },
    });
    const config = shown.json<{
      activeProfile: string;
      settings: Record<string, { value: string; source: string } | null>;
    }>();
    assert.equal(config.activeProfile, 'prod');
    assert.deepEqual(config.settings.url, { value: 'http://127.0.0.1:7000', source: 'env' });
    assert.deepEqual(config.settings.compat, { value: 'virgil', source: 'config' });
    assert.deepEqual(config.settings.identity, { value: 'erin', source: 'config' });
    const flagged = await box.cards(
      ['config', '--json', '--identity', 'frank', '--compat', 'service'],
      { env },
    );
    const f = flagged.json<{ settings: Record<string, { value: string; source: string }> }>();
    assert.deepEqual(f.settings.identity, { value: 'frank', source: 'flag' });
    assert.deepEqual(f.settings.compat, { value: 'service', source: 'flag' });
    assert.equal(f.settings.credentials?.source, 'config');

    const missing = await box.cards(['config', '--profile', 'nope'], { env });
    assert.equal(missing.status, 2, said(missing));
    assert.match(missing.stderr, /CONFIG_INVALID[^\n]*\n.*known profiles: prod/);
    writeFileSync(join(cfgDir, 'broken.json'), '{');
    const broken = await box.cards(['config'], {
      env: { CARDS_CONFIG: join(cfgDir, 'broken.json') },
    });
    assert.equal(broken.status, 2, said(broken));
  });
});
