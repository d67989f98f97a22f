/**
 * What a real `cards serve` sends around the page and the admin API, over a socket (the fast
 * path's answers included): a Content-Security-Policy, nosniff and frame protection on every
 * page and admin answer, refusals too (those sent before any route: 404 in their folders, 405,
 * a malformed escape); CORS on the card and log routes only; the page's own
 * requests (same-origin fetches) and its loads left out of the journal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postCard } from '../helpers/post-card.js';
import { type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard } from './card-kit.js';

let server: Served;
let alice: string;

before(async () => {
  server = await startInProcess({ args: ['--quiet'] });
  const card = makeCard('alice');
  await postCard(server, 'alice', card.raw);
  alice = card.id;
});
after(() => server?.dispose());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers });

describe('security headers and CORS', () => {
  test('every page and admin answer: a policy, nosniff, no framing; no CORS', async () => {
    const paths = [
      '/',
      '/docs',
      '/openapi.json',
      '/_page/app.js',
      '/_page/style.css',
      '/_page/noble/curves/ed25519.js',
      '/_page/core/terminal-text.js',
      '/_page/nothing.js', // a refusal (404) of a page route
      '/_cards/info',
      '/_cards/identities',
      '/_cards/identities/alice',
      '/_cards/identities/alice', // again: kept, answered before fastify
      '/_cards/identities/nobody', // a refusal (404)
      '/_cards/identities?limit=0', // a refusal (400)
      '/_cards/requests',
      '/metrics',
    ];
    for (const path of paths) {
      const response = await get(path);
      const h = response.headers;
      assert.match(h.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
      assert.match(h.get('content-security-policy') ?? '', /default-src 'none'/, path);
      assert.equal(h.get('x-content-type-options'), 'nosniff', path);
      assert.equal(h.get('x-frame-options'), 'DENY', path);
      assert.equal(h.get('access-control-allow-origin'), null, path);
      await response.arrayBuffer();
    }
    // An admin refusal for want of a token carries them too.
    const refused = await get('/_cards/info', { authorization: 'Bearer not-the-token-at-all' });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
  });

  test('refusals sent before any route: on the admin and page paths with them, elsewhere without', async () => {
    const guarded = [
      ['GET', '/_cards/nothing', 404], // a path of the admin API's folder no route serves
      ['GET', '/_cards', 404],
      ['GET', '/_cards/identities/%ff', 400], // an escape the router refuses
      ['GET', '/_page/x%zz', 400],
      ['DELETE', '/_cards/info', 405],
      ['POST', '/metrics', 405],
      ['PUT', '/', 405],
      ['POST', '/docs', 405],
    ] as const;
    for (const [method, path, status] of guarded) {
      const response = await fetch(`${server.url}${path}`, { method });
      const h = response.headers;
      assert.equal(response.status, status, `${method} ${path}`);
      assert.match(h.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
      assert.equal(h.get('x-content-type-options'), 'nosniff', `${method} ${path}`);
      assert.equal(h.get('x-frame-options'), 'DENY', `${method} ${path}`);
      assert.equal(h.get('access-control-allow-origin'), null, `${method} ${path}`);
      await response.arrayBuffer();
    }
    // The card routes' and unknown paths' refusals answer as the deployed service does.
    for (const [method, path] of [
      ['DELETE', '/card/v5'],
      ['GET', '/card/v5/x/y'],
      ['GET', '/nothing'],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method });
      assert.equal(response.headers.get('content-security-policy'), null, `${method} ${path}`);
      assert.equal(response.headers.get('x-content-type-options'), null, `${method} ${path}`);
      await response.arrayBuffer();
    }
  });

  test("the page's policy: its own scripts (the import map by hash), styles and fetches", async () => {
    const page = await get('/');
    const policy = page.headers.get('content-security-policy') ?? '';
    assert.match(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/]{43}='(;|$)/);
    assert.match(policy, /connect-src 'self'/);
    assert.doesNotMatch(policy, /unsafe/);
    // A JSON answer opened in a tab runs nothing.
    const info = await get('/_cards/info');
    assert.doesNotMatch(info.headers.get('content-security-policy') ?? '', /script-src/);
  });

  test('card and log answers: CORS for any origin, no page headers (the wire unchanged)', async () => {
    const token = await server.token('alice');
    for (const [path, headers] of [
      ['/health', {}],
      [`/card/v5/${alice}`, { authorization: `Service ${token}` }],
      ['/log/checkpoint', {}],
      ['/log/checkpoint', {}], // again: answered before fastify
    ] as const) {
      const response = await get(path, headers);
      assert.equal(response.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(response.headers.get('content-security-policy'), null, path);
      assert.equal(response.headers.get('x-content-type-options'), null, path);
      await response.arrayBuffer();
    }
  });

  test('a preflight: granted on card routes, 405 on admin and page routes', async () => {
    const preflight = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' },
      });
    const card = await preflight('/card/v5');
    assert.equal(card.status, 204);
    assert.equal(card.headers.get('access-control-allow-origin'), '*');
    for (const path of ['/_cards/info', '/_cards/identities/alice', '/metrics', '/', '/docs']) {
      const response = await preflight(path);
      assert.equal(response.status, 405, path);
      assert.equal(response.headers.get('access-control-allow-origin'), null, path);
      assert.doesNotMatch(response.headers.get('allow') ?? '', /OPTIONS/, path);
      await response.arrayBuffer();
    }
  });
});

describe('the journal', () => {
  test("the page's own requests (same-origin) and its loads are not journaled", async () => {
    const journal = async (): Promise<{ paths: string[]; total: number }> => {
      const response = await get('/_cards/requests?limit=1000');
      const { requests, total } = (await response.json()) as {
        requests: { path: string }[];
        total: number;
      };
      return { paths: requests.map((r) => r.path), total };
    };
    const before = await journal();
    const page = { 'sec-fetch-site': 'same-origin' };
    for (const path of ['/_cards/identities?prefix=a', '/_cards/identities/alice', '/_cards/info'])
      await (await get(path, page)).arrayBuffer();
    for (const path of ['/', '/docs']) await (await get(path)).arrayBuffer();
    // A client's request, the same as the page's first one: journaled.
    await (await get('/_cards/identities?prefix=a')).arrayBuffer();
    const now = await journal();
    assert.equal(now.total, before.total + 1);
    assert.equal(now.paths[0], '/_cards/identities');
  });
});
