import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { encodeBase64Url, utf8 } from '../../src/core/encoding.js';
import { CardsError, type ErrorCode } from '../../src/core/errors.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken, verifyToken } from '../../src/crypto/tokens.js';

const app = generatePrivateKey();
const other = generatePrivateKey();
const now = 1_800_000_000_000;
const keys = [{ key: app.publicKey }];

async function codeOf(
  token: string,
  options: Partial<Parameters<typeof verifyToken>[1]> = {},
): Promise<ErrorCode | 'none'> {
  try {
    await verifyToken(token, { keys, now, ...options });
    return 'none';
  } catch (err) {
    if (err instanceof CardsError) return err.code;
    throw err;
  }
}

const segment = (value: unknown): string => encodeBase64Url(utf8(JSON.stringify(value)));

for (const format of ['jwt', 'stock'] as const) {
  test(`${format} tokens: minted tokens verify and carry the identity`, async () => {
    const token = await mintToken({
      key: app,
      identity: 'alice',
      now,
      ttlSeconds: 3600,
      format,
      appId: 'a1',
      kid: 'k1',
    });
    const verified = await verifyToken(token, { keys, now, appId: 'a1', appKeyId: 'k1' });
    assert.equal(verified.identity, 'alice');
    assert.equal(verified.expiresAt, now / 1000 + 3600);
    assert.equal(verified.format, format);
  });

  test(`${format} tokens: expiry, skew, keys and tampering`, async () => {
    const mint = (o: { now?: number; ttl?: number; key?: typeof app } = {}) =>
      mintToken({
        key: o.key ?? app,
        identity: 'alice',
        now: o.now ?? now,
        ttlSeconds: o.ttl ?? 60,
        format,
        appId: 'a1',
        kid: 'k1',
      });
    assert.equal(await codeOf(await mint({ now: now - 120_000 })), 'TOKEN_EXPIRED');
    // exp has no leeway by default (the deployed service's rule): 1 s past exp is expired,
    // exactly at exp too; 1 s before is fine. --clock-skew 30 widens it.
    const expired1s = await mint({ now: now - 61_000 });
    assert.equal(await codeOf(expired1s), 'TOKEN_EXPIRED', '1 s past exp');
    assert.equal(await codeOf(await mint({ now: now - 60_000 })), 'TOKEN_EXPIRED', 'at exp');
    assert.equal(await codeOf(await mint({ now: now - 59_000 })), 'none', '1 s before exp');
    assert.equal(await codeOf(expired1s, { clockSkewSeconds: 30 }), 'none', '--clock-skew 30');
    assert.equal(
      await codeOf(await mint({ now: now - 91_000 }), { clockSkewSeconds: 30 }),
      'TOKEN_EXPIRED',
      '31 s past exp with --clock-skew 30',
    );
    // iat in the future: 5 s of leeway by default, --clock-skew widens it.
    assert.equal(await codeOf(await mint({ now: now + 4_000 })), 'none', 'iat 4 s ahead');
    const ahead10s = await mint({ now: now + 10_000 });
    assert.equal(await codeOf(ahead10s), 'TOKEN_NOT_YET_VALID', 'iat 10 s ahead');
    assert.equal(await codeOf(ahead10s, { clockSkewSeconds: 30 }), 'none');
    assert.equal(
      await codeOf(await mint({ now: now + 600_000, ttl: 3600 })),
      'TOKEN_NOT_YET_VALID',
    );
    assert.equal(await codeOf(await mint({ key: other })), 'TOKEN_SIGNATURE');
    assert.equal(await codeOf(await mint(), { keys: [] }), 'TOKEN_SIGNATURE');
    const [h, , s] = (await mint()).split('.');
    const forged =
      format === 'jwt'
        ? { sub: 'bob', exp: now / 1000 + 60 }
        : { iss: 'virgil-a1', sub: 'identity-bob', iat: now / 1000, exp: now / 1000 + 60 };
    assert.equal(await codeOf(`${h}.${segment(forged)}.${s}`), 'TOKEN_SIGNATURE');
  });
}

test('algorithms are pinned: none, HS256 with the public key as secret, and junk are refused', async () => {
  const claims = segment({ sub: 'alice', exp: now / 1000 + 60 });
  const none = `${segment({ alg: 'none', typ: 'JWT' })}.${claims}.`;
  assert.equal(await codeOf(none), 'TOKEN_ALGORITHM');
  const hsHeader = segment({ alg: 'HS256', typ: 'JWT' });
  const mac = createHmac('sha256', app.publicKey.toPem())
    .update(`${hsHeader}.${claims}`)
    .digest('base64url');
  assert.equal(await codeOf(`${hsHeader}.${claims}.${mac}`), 'TOKEN_ALGORITHM');
  assert.equal(await codeOf(''), 'TOKEN_MALFORMED');
  assert.equal(await codeOf('a.b'), 'TOKEN_MALFORMED');
  assert.equal(await codeOf('!!!.???.***'), 'TOKEN_MALFORMED');
});

test('exp is required, nbf is enforced and sub must be a string', async () => {
  const { SignJWT } = await import('jose');
  const notBefore = await new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject('alice')
    .setExpirationTime(now / 1000 + 600)
    .setNotBefore(now / 1000 + 300)
    .sign(app.keyObject);
  assert.equal(await codeOf(notBefore), 'TOKEN_NOT_YET_VALID');
  const noExp = await new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject('alice')
    .sign(app.keyObject);
  assert.equal(await codeOf(noExp), 'TOKEN_CLAIMS');
  const noSub = await new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA' })
    .setExpirationTime(now / 1000 + 60)
    .sign(app.keyObject);
  assert.equal(await codeOf(noSub), 'TOKEN_CLAIMS');
});

test('stock tokens: a bare 64-byte signature, wrong app id or key id are refused', async () => {
  const token = await mintToken({
    key: app,
    identity: 'alice',
    now,
    ttlSeconds: 60,
    format: 'stock',
    appId: 'a1',
    kid: 'k1',
  });
  const [h, c, s] = token.split('.') as [string, string, string];
  const bare = encodeBase64Url(Buffer.from(s, 'base64url').subarray(19));
  assert.equal(await codeOf(`${h}.${c}.${bare}`), 'TOKEN_SIGNATURE');
  assert.equal(await codeOf(token, { appId: 'other' }), 'TOKEN_CLAIMS');
  assert.equal(await codeOf(token, { appKeyId: 'other' }), 'TOKEN_SIGNATURE');
});

test('mintToken is byte-identical to the jose-minted token, with and without kid', async () => {
  const { SignJWT } = await import('jose');
  for (const kid of [undefined, 'k1']) {
    const options = { key: app, identity: 'alice', now, ttlSeconds: 600, ...(kid && { kid }) };
    const iat = Math.floor(now / 1000);
    const jose = await new SignJWT({})
      .setProtectedHeader(kid ? { alg: 'EdDSA', typ: 'JWT', kid } : { alg: 'EdDSA', typ: 'JWT' })
      .setSubject('alice')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(app.keyObject);
    assert.equal(mintToken(options), jose);
  }
});

// a claim of the wrong type is an invalid claim (20307), not a token that is
// "not valid yet" (20305) or expired; in both token formats.
test('wrongly typed iat, nbf or exp get TOKEN_CLAIMS in both formats', async () => {
  const { signParts } = await import('../../src/crypto/ed25519.js');
  const { sign } = await import('node:crypto');
  const exp = now / 1000 + 600;
  const signed = (format: 'jwt' | 'stock', claims: Record<string, unknown>): string => {
    if (format === 'jwt') {
      const input = `${segment({ alg: 'EdDSA', typ: 'JWT' })}.${segment({ sub: 'alice', exp, ...claims })}`;
      return `${input}.${encodeBase64Url(new Uint8Array(sign(null, utf8(input), app.keyObject)))}`;
    }
    const header = { alg: 'VEDS512', kid: 'k1', typ: 'JWT', cty: 'virgil-jwt;v=1' };
    const body = { iss: 'virgil-a1', sub: 'identity-alice', iat: now / 1000, exp, ...claims };
    const input = `${segment(header)}.${segment(body)}`;
    return `${input}.${encodeBase64Url(signParts(app, utf8(input)))}`;
  };
  for (const format of ['jwt', 'stock'] as const) {
    assert.equal(await codeOf(signed(format, {})), 'none', format);
    for (const claims of [
      { iat: 'yesterday' },
      { iat: null },
      { iat: '1800000000' },
      { nbf: 'yesterday' },
      { nbf: true },
      { exp: 'tomorrow' },
      { exp: String(exp) },
      { exp: null },
    ]) {
      assert.equal(
        await codeOf(signed(format, claims)),
        'TOKEN_CLAIMS',
        `${format} ${JSON.stringify(claims)}`,
      );
    }
    assert.equal(
      await codeOf(signed(format, { nbf: now / 1000 + 300 })),
      'TOKEN_NOT_YET_VALID',
      format,
    );
  }
});

test('a token whose identity is not well-formed text is refused (400 TEXT_NOT_UNICODE, the rule of every identity): "x\\uFFFD" never stands for "x\\uD800"', async () => {
  for (const format of ['jwt', 'stock'] as const)
    for (const identity of ['x\uD800', 'x\uDBFF', '\uDC00', 'x\u0000']) {
      const token = await mintToken({ key: app, identity, now, ttlSeconds: 60, format });
      assert.equal(
        await codeOf(token),
        'TEXT_NOT_UNICODE',
        `${format} ${JSON.stringify(identity)}`,
      );
      // A token that is not valid otherwise is refused as such first (401).
      const expired = await mintToken({
        key: app,
        identity,
        now: now - 120_000,
        ttlSeconds: 60,
        format,
      });
      assert.equal(await codeOf(expired), 'TOKEN_EXPIRED', `${format} ${JSON.stringify(identity)}`);
    }
  const fffd = await mintToken({ key: app, identity: 'x\uFFFD', now, ttlSeconds: 60 });
  assert.equal((await verifyToken(fffd, { keys, now })).identity, 'x\uFFFD');
});
