/**
 * Authentication attacks: a table of forged, stale and malformed tokens sent to every
 * authenticated route of a real `cards serve`. Each gets 401 with its documented code, and
 * nothing changes: the store's files stay byte-identical, the new card is never stored, the
 * existing one is never revoked. A valid token of another identity cannot create or revoke
 * alice's cards (40034).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { decodeBase64Url, encodeBase64, encodeBase64Url, utf8 } from '../../src/core/encoding.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { generatePrivateKey, parsePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { call, replyCode, storeBytes } from './kit.js';

const segment = (value: unknown): string => encodeBase64Url(utf8(JSON.stringify(value)));
const hs256 = (secret: string | Uint8Array, header: unknown, claims: unknown): string => {
  const input = `${segment(header)}.${segment(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
};
const parts = (token: string): [string, string, string] =>
  token.split('.') as [string, string, string];

test('authentication attacks: 401 with the documented code and no change; bob cannot touch alice (40034)', async (t) => {
  const server = await startInProcess({ args: ['--quiet'] });
  t.after(() => server.dispose());
  const appKey = parsePrivateKey(readFileSync(server.paths.appKey, 'utf8'));
  const now = Date.now();
  const s = Math.floor(now / 1000);
  const claims = { sub: 'alice', iat: s, exp: s + 600 };
  const valid = (identity: string, extra: { now?: number; ttl?: number } = {}) =>
    mintToken({ key: appKey, identity, now: extra.now ?? now, ttlSeconds: extra.ttl ?? 600 });
  const stock = (identity: string, at = now, ttl = 600) =>
    mintToken({ key: appKey, identity, now: at, ttlSeconds: ttl, format: 'stock', appId: 'a1' });

  const existing = makeCard('alice');
  assert.equal((await call(server, 'POST', '/card/v5', { body: existing.raw })).status, 201);
  const before = storeBytes(server.paths);

  const publicPem = appKey.publicKey.keyObject.export({ type: 'spki', format: 'pem' }) as string;
  const publicB64 = encodeBase64(appKey.publicKey.spki);
  const [bobHeader, , bobSignature] = parts(await valid('bob'));
  const [stockHeader, stockClaims, stockSignature] = parts(await stock('alice'));
  const stockDer = decodeBase64Url(stockSignature) as Uint8Array;
  const [, , bobStockSignature] = parts(await stock('bob'));

  const attacks: [string, string | undefined, ErrorCode][] = [
    ['no header', undefined, 'AUTH_MISSING'],
    ['empty header', '', 'AUTH_MISSING'],
    ['wrong scheme (Bearer)', `Bearer ${await valid('alice')}`, 'AUTH_SCHEME'],
    ['wrong scheme (Basic)', 'Basic YWxpY2U6c2VjcmV0', 'AUTH_SCHEME'],
    ['scheme glued to the token', `Service${await valid('alice')}`, 'AUTH_SCHEME'],
    ['empty token', 'Service', 'TOKEN_MALFORMED'],
    ['empty token, trailing space', 'Service   ', 'TOKEN_MALFORMED'],
    ['not a JWT', 'Service not-a-token', 'TOKEN_MALFORMED'],
    ['two segments', `Service ${segment({ alg: 'EdDSA' })}.${segment(claims)}`, 'TOKEN_MALFORMED'],
    ['garbage segments', 'Service a.b.c', 'TOKEN_MALFORMED'],
    ['a very long token', `Service ${'A'.repeat(8000)}.${'B'.repeat(8000)}.C`, 'TOKEN_MALFORMED'],
    [
      'alg none, no signature',
      `Service ${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims)}.`,
      'TOKEN_ALGORITHM',
    ],
    [
      'alg NONE, no signature',
      `Service ${segment({ alg: 'NONE' })}.${segment(claims)}.`,
      'TOKEN_ALGORITHM',
    ],
    [
      'HS256, public key (PEM) as secret',
      `Service ${hs256(publicPem, { alg: 'HS256', typ: 'JWT' }, claims)}`,
      'TOKEN_ALGORITHM',
    ],
    [
      'HS256, public key (base64 DER) as secret',
      `Service ${hs256(publicB64, { alg: 'HS256', typ: 'JWT' }, claims)}`,
      'TOKEN_ALGORITHM',
    ],
    [
      'HS256, public key (DER bytes) as secret',
      `Service ${hs256(appKey.publicKey.spki, { alg: 'HS256', typ: 'JWT' }, claims)}`,
      'TOKEN_ALGORITHM',
    ],
    [
      'RS256 header on an Ed25519 signature',
      `Service ${segment({ alg: 'RS256' })}.${segment(claims)}.${bobSignature}`,
      'TOKEN_ALGORITHM',
    ],
    [
      'untrusted key (EdDSA)',
      `Service ${await mintToken({ key: generatePrivateKey(), identity: 'alice', now, ttlSeconds: 600 })}`,
      'TOKEN_SIGNATURE',
    ],
    [
      'untrusted key (stock format)',
      `Service ${await mintToken({ key: generatePrivateKey(), identity: 'alice', now, ttlSeconds: 600, format: 'stock', appId: 'a1' })}`,
      'TOKEN_SIGNATURE',
    ],
    [
      'expired',
      `Service ${await valid('alice', { now: now - 7_200_000, ttl: 60 })}`,
      'TOKEN_EXPIRED',
    ],
    [
      'expired (stock format)',
      `Service ${await stock('alice', now - 7_200_000, 60)}`,
      'TOKEN_EXPIRED',
    ],
    [
      'not yet valid (nbf)',
      `Service ${await new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA' })
        .setSubject('alice')
        .setNotBefore(s + 3600)
        .setExpirationTime(s + 7200)
        .sign(appKey.keyObject)}`,
      'TOKEN_NOT_YET_VALID',
    ],
    [
      'not yet valid (iat in the future)',
      `Service ${await valid('alice', { now: now + 3_600_000 })}`,
      'TOKEN_NOT_YET_VALID',
    ],
    [
      'no exp',
      `Service ${await new SignJWT({}).setProtectedHeader({ alg: 'EdDSA' }).setSubject('alice').sign(appKey.keyObject)}`,
      'TOKEN_CLAIMS',
    ],
    [
      "tampered claims: bob's token saying alice",
      `Service ${bobHeader}.${segment(claims)}.${bobSignature}`,
      'TOKEN_SIGNATURE',
    ],
    [
      "tampered claims: bob's stock token saying alice",
      `Service ${stockHeader}.${stockClaims}.${bobStockSignature}`,
      'TOKEN_SIGNATURE',
    ],
    [
      'tampered header: alg switched on a stock token',
      `Service ${segment({ alg: 'EdDSA', typ: 'JWT' })}.${stockClaims}.${stockSignature}`,
      'TOKEN_SIGNATURE',
    ],
    [
      'stock format, signature a bare 64 bytes',
      `Service ${stockHeader}.${stockClaims}.${encodeBase64Url(stockDer.subarray(stockDer.byteLength - 64))}`,
      'TOKEN_SIGNATURE',
    ],
    [
      'stock format, signature truncated',
      `Service ${stockHeader}.${stockClaims}.${encodeBase64Url(stockDer.subarray(0, 40))}`,
      'TOKEN_SIGNATURE',
    ],
  ];

  const fresh = makeCard('alice');
  const routes: [string, string, unknown][] = [
    ['POST', '/card/v5', fresh.raw],
    ['POST', `/card/v5/actions/revoke/${existing.id}`, {}],
    ['POST', '/v5/card/actions/revoke', makeRevocation('alice', existing.id).raw],
    ['POST', '/card/actions/search', { identity: 'alice' }],
    ['GET', `/card/v5/${existing.id}`, undefined],
  ];
  for (const [name, header, expected] of attacks) {
    for (const [method, path, body] of routes) {
      const reply = await call(server, method, path, {
        ...(body !== undefined && { body }),
        identity: null,
        ...(header !== undefined && { headers: { authorization: header } }),
      });
      assert.equal(reply.status, 401, `${name}: ${method} ${path}`);
      assert.equal(replyCode(reply, name), expected, `${name}: ${method} ${path}`);
      assert.equal(storeBytes(server.paths), before, `${name}: nothing changed`);
    }
  }

  // A valid token of bob against alice's cards.
  const bob: [string, string, unknown, ErrorCode][] = [
    ['POST', '/card/v5', fresh.raw, 'IDENTITY_MISMATCH'],
    ['POST', `/card/v5/actions/revoke/${existing.id}`, {}, 'IDENTITY_MISMATCH'],
    ['POST', `/card/v5/actions/revoke/${existing.id}`, undefined, 'IDENTITY_MISMATCH'],
    [
      'POST',
      '/card/v5/actions/revoke',
      makeRevocation('alice', existing.id).raw,
      'IDENTITY_MISMATCH',
    ],
    [
      'POST',
      '/card/v5',
      makeCard('bob', { previousCardId: existing.id }).raw,
      'PREVIOUS_IDENTITY_MISMATCH',
    ],
    [
      'POST',
      '/card/v5/actions/revoke',
      makeRevocation('bob', existing.id).raw,
      'PREVIOUS_IDENTITY_MISMATCH',
    ],
  ];
  for (const [method, path, body, expected] of bob) {
    const reply = await call(server, method, path, {
      ...(body !== undefined && { body }),
      identity: 'bob',
    });
    assert.equal(replyCode(reply, path), expected, `bob: ${method} ${path}`);
    assert.equal(storeBytes(server.paths), before, `bob: ${path}: nothing changed`);
  }

  // Alice's card is still the one live card; the attacked card was never stored.
  assert.equal((await call(server, 'GET', `/card/v5/${fresh.id}`)).status, 404);
  const found = await call(server, 'POST', '/card/v5/actions/search', {
    body: { identity: 'alice' },
  });
  assert.equal((JSON.parse(found.text) as unknown[]).length, 1);
  assert.equal(
    (await call(server, 'GET', `/card/v5/${existing.id}`)).headers.get('x-service-is-superseeded'),
    null,
  );
});
