/**
 * The OpenAPI document: valid OpenAPI 3.1 by an independent validator
 * (@seriousme/openapi-schema-validator, the official JSON Schemas of the OpenAPI Initiative),
 * generated from the route and error tables (every route in every spelling, every error code a
 * route lists, both auth schemes, the superseded header), served at /openapi.json and /docs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { WIRE_ERRORS, type WireError } from '../../src/core/errors.js';
import { PROFILES } from '../../src/core/profile.js';
import { ROUTES, routePaths } from '../../src/core/routes.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { buildOpenApi } from '../../src/http/openapi.js';
import { errorsOf } from '../../src/http/openapi-schemas.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
  components: { securitySchemes: Record<string, unknown> };
};

for (const profile of Object.values(PROFILES))
  test(`${profile.name}: the document is valid OpenAPI 3.1 and covers the tables`, async () => {
    const doc = buildOpenApi(profile) as unknown as Doc;
    const result = await new Validator().validate(
      doc as unknown as Parameters<Validator['validate']>[0],
    );
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      'adminToken',
      'cardToken',
    ]);
    for (const route of ROUTES)
      for (const path of routePaths(route)) {
        const key = path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{asset}');
        const operation = doc.paths[key]?.[route.method.toLowerCase()];
        assert.ok(operation, `${route.method} ${path} missing`);
        const described = Object.values(operation.responses)
          .map((r) => r.description)
          .join(' ');
        for (const code of errorsOf(route.name)) {
          assert.ok(
            described.includes(`${WIRE_ERRORS[code].wire} ${code}`),
            `${route.name} ${code}`,
          );
          // Each status the error table gives the code (STORE_UNAVAILABLE: 500 and 503).
          const info: WireError = WIRE_ERRORS[code];
          for (const status of [info.status, info.alsoStatus].filter((x) => x !== undefined))
            assert.ok(
              operation.responses[String(status)]?.description.includes(`${info.wire} ${code}`),
              `${route.name}: ${code} under ${status}`,
            );
        }
      }
    const get = JSON.stringify(doc.paths['/card/v5/{id}']?.get);
    assert.ok(get.includes(profile.supersededHeader));
  });

test('a broken document is refused by the validator (the check can fail)', async () => {
  const doc = buildOpenApi(PROFILES.service) as unknown as Doc;
  (doc.paths['/health'] as Record<string, unknown>).get = { responses: 'none' };
  const result = await new Validator().validate(
    doc as unknown as Parameters<Validator['validate']>[0],
  );
  assert.equal(result.valid, false);
});

test('GET /openapi.json serves the document; /docs renders it', async () => {
  const profile = PROFILES.virgil;
  const serviceKey = generatePrivateKey();
  const app = await createApp({
    registry: createRegistry({ store: new MemoryStore(), serviceKey, signer: profile.signer }),
    profile,
    auth: createAuthenticator({ keys: [], scheme: profile.scheme }),
    admin: { token: 'x'.repeat(20), loopbackOpen: false, serviceKey: 'k' },
  });
  const served = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(served.statusCode, 200);
  assert.deepEqual(served.json(), buildOpenApi(profile));
  const docs = await app.inject({ method: 'GET', url: '/docs' });
  assert.equal(docs.statusCode, 200);
  assert.match(docs.headers['content-type'] as string, /^text\/html/);
  assert.match(docs.body, /openapi\.json/);
  await app.close();
});
