/**
 * The request log: every line has its time, and a refusal its code; an
 * unknown path names itself and lists the routes of the one route table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { createRequestLogger } from '../../src/http/request-log.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';

async function appWithLog(format: 'text' | 'json') {
  let written = '';
  const logger = createRequestLogger({
    format,
    write: (text) => (written += text),
    clock: () => Date.UTC(2026, 10, 23, 12, 0, 0),
  });
  const profile = PROFILES.service;
  const app = await createApp({
    registry: createRegistry({
      store: new MemoryStore(),
      serviceKey: generatePrivateKey(),
      signer: profile.signer,
    }),
    profile,
    auth: createAuthenticator({
      keys: [{ key: generatePrivateKey().publicKey }],
      scheme: 'Service',
    }),
    logger,
  });
  return {
    app,
    lines: async (): Promise<string[]> => {
      await new Promise((resolve) => setImmediate(resolve));
      logger.flush();
      return written.trim().split('\n');
    },
  };
}

test('text lines: time, method, path, status, the code of a refusal, ms', async () => {
  const { app, lines } = await appWithLog('text');
  await app.inject({ method: 'GET', url: '/health' });
  await app.inject({ method: 'GET', url: '/card/v5/abc' });
  await app.inject({ method: 'POST', url: '/card/v5/actions/search', payload: {} });
  const [health, get, search] = await lines();
  assert.match(health ?? '', /^2026-11-23T12:00:00\.000Z GET \/health 200 [\d.]+ms$/);
  assert.match(
    get ?? '',
    /^2026-11-23T12:00:00\.000Z GET \/card\/v5\/abc 401 AUTH_MISSING [\d.]+ms$/,
  );
  assert.match(search ?? '', / POST \/card\/v5\/actions\/search 401 AUTH_MISSING /);
  await app.close();
});

test('JSON lines carry the code of a refusal', async () => {
  const { app, lines } = await appWithLog('json');
  await app.inject({ method: 'DELETE', url: '/card/v5' });
  const [line] = await lines();
  const entry = JSON.parse(line ?? '{}') as Record<string, unknown>;
  assert.equal(entry.code, 'METHOD_NOT_ALLOWED');
  assert.equal(entry.status, 405);
  assert.equal(entry.time, '2026-11-23T12:00:00.000Z');
  await app.close();
});

test('an unknown path names itself and lists the routes', async () => {
  const { app } = await appWithLog('text');
  const response = await app.inject({ method: 'GET', url: '/' });
  assert.equal(response.statusCode, 404);
  const { message } = JSON.parse(response.body) as { message: string };
  assert.match(message, /GET \//);
  for (const route of [
    'POST /card/v5',
    'GET /card/v5/:id',
    'POST /card/v5/actions/search',
    'GET /health',
  ])
    assert.ok(message.includes(route), `lists ${route}: ${message}`);
  await app.close();
});

test('warnings reach the terminal with their controls written out, in text and JSON', () => {
  const message = 'witness said \x1b]0;title\x07\x1b[2J\r\nforged \u009b31m \u202eevil';
  for (const format of ['text', 'json'] as const) {
    let written = '';
    const logger = createRequestLogger({ format, write: (text) => (written += text) });
    logger.warn(message);
    logger.flush();
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(written.slice(0, -1), /[\u0000-\u001f\u007f-\u009f\u202e]/, format);
    if (format === 'json') assert.equal(JSON.parse(written).message, message);
    else
      assert.match(
        written,
        /warning: witness said \\x1b\]0;title\\x07\\x1b\[2J\\r\\nforged \\x9b31m \\u202eevil\n$/,
      );
  }
});
