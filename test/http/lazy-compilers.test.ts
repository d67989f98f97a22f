/**
 * The HTTP stack's schema compilers (src/http/lazy-compilers.ts): a stack whose route has a
 * query-string schema starts without loading ajv, and the route's first request loads it and is
 * checked by it, as fastify's default compiler checks it (a refusal names the parameter at
 * fault in `validation`). This file runs in a process of its own (scripts/run-tests.js), so
 * nothing else here has loaded ajv.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { FastifyError } from 'fastify';
import { createStack } from '../../src/http/stack.js';
import { silentLogger } from '../../src/http/request-log.js';

const loaded = (name: string): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((path) =>
    path.includes(`/node_modules/${name}/`),
  );

test('ajv loads with the first request a schema checks, and checks it', async () => {
  const { app } = createStack({
    logger: silentLogger,
    bodyLimit: 1024,
    errorBody: (err) => ({ type: 'text/plain', body: err.message }),
    notFound: (_request, reply) => reply.code(404).send('not found'),
  });
  // In a scope of its own, as the admin routes are; the refusal's body is where ajv found the
  // fault (the admin routes name the parameter so).
  await app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, _request, reply) =>
      reply.code(400).send(err.validation?.[0]?.instancePath ?? 'no validation'),
    );
    const limit = { type: 'string', pattern: '^\\d+$' };
    const schema = { querystring: { type: 'object', properties: { limit } } };
    scope.get('/q', { schema }, async () => 'ok');
  });
  await app.ready();
  assert.equal(loaded('ajv'), false, 'a started stack has not loaded ajv');
  // fastify's own error serializer needs fast-json-stringify's runtime, never its compiler.
  assert.equal(loaded('@fastify/fast-json-stringify-compiler'), false);
  const refused = await app.inject('/q?limit=x');
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.body, '/limit', "ajv's refusal names the parameter");
  assert.equal(loaded('ajv'), true, 'the first checked request loaded it');
  const served = await app.inject('/q?limit=12');
  assert.equal(served.statusCode, 200);
  assert.equal(served.body, 'ok');
  await app.close();
});
