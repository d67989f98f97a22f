/**
 * Over a real socket, the answers `inject` gives (which never reaches the socket): status, body,
 * every header but the date, with CORS on and off, for the reads a client repeats (the log's
 * checkpoint, a tile read before and one not, a bundle, a proof, an identity's history kept
 * between requests and not), HEAD, query strings and refusals (an unknown card or identity, a
 * bad id or escape, a refused admin token); what the node server adds (stack.ts) changes nothing
 * else. Every answer is in the request journal and the metrics; a history is never stale.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64 } from '../../src/core/encoding.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { tilePath } from '../../src/log/tile-path.js';
import { awakeSignal } from '../helpers/awake.js';
import { loggedMemoryRegistry } from '../helpers/log-kit.js';
import { makeCard } from './card-kit.js';

const TOKEN = 'cards_admin_0123456789abcdef0123456789';
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A served registry with a log of `n` cards, listening on a loopback port. */
async function served(n: number, cors: boolean) {
  const { profile, appKey, log, registry, auth } = await loggedMemoryRegistry(
    'test.local/fast',
    10,
  );
  const app = await createApp({
    registry,
    profile,
    auth,
    version: 't',
    log,
    cors,
    admin: { token: TOKEN, loopbackOpen: false, serviceKey: 'AAAA' },
  });
  /** Creates a card of `identity` (replacing `previous`) through fastify; its id. */
  const create = async (identity: string, previous?: string): Promise<string> => {
    const token = await mintToken({ key: appKey, identity, now: Date.now(), ttlSeconds: 60 });
    const card = makeCard(identity, previous === undefined ? {} : { previousCardId: previous });
    const r = await app.inject({
      method: 'POST',
      url: '/card/v5',
      payload: JSON.stringify(card.raw),
      headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
    });
    assert.equal(r.statusCode, 201, r.body);
    const snapshot = (JSON.parse(r.body) as { content_snapshot: string }).content_snapshot;
    return cardIdOf(decodeBase64(snapshot) as Uint8Array);
  };
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await create(`u${i}`));
  await log.integrate();
  assert.equal(log.size, n);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  closers.push(async () => {
    await app.close();
    await log.close();
  });
  return { app, log, url, ids, create, registry };
}

type Answer = { status: number; body: string; headers: Record<string, string> };

const overSocket = async (url: string, init: RequestInit = {}): Promise<Answer> => {
  // A request the server never answers fails here by its path, not as the file's timeout.
  const r = await fetch(url, { ...init, signal: awakeSignal(20_000, 'no answer in 20 s') }).catch(
    (err: Error) => {
      throw new Error(`${init.method ?? 'GET'} ${url}: ${err.message}`, { cause: err });
    },
  );
  const body = Buffer.from(await r.arrayBuffer()).toString('base64');
  const headers = Object.fromEntries([...r.headers].filter(([name]) => !SOCKET_ONLY.has(name)));
  return { status: r.status, body, headers };
};
/** Headers node's socket adds to every response, with or without fastify. */
const SOCKET_ONLY = new Set(['date', 'connection', 'keep-alive']);

const throughFastify = async (
  app: Awaited<ReturnType<typeof served>>['app'],
  url: string,
  method: 'GET' | 'HEAD' = 'GET',
  sent: Record<string, string> = {},
): Promise<Answer> => {
  const r = await app.inject({ method, url, headers: { host: 'localhost', ...sent } });
  const headers = Object.fromEntries(
    Object.entries(r.headers)
      .filter(([name]) => !SOCKET_ONLY.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
  return { status: r.statusCode, body: r.rawPayload.toString('base64'), headers };
};

for (const cors of [true, false])
  describe(`repeated reads (CORS ${cors ? 'on' : 'off'})`, () => {
    test('checkpoint, a tile read before, a bundle and a proof: the answers inject gives', async () => {
      const { app, url, ids } = await served(300, cors);
      const tile = `/log/${tilePath({ level: 0, index: 0, width: 256 })}`;
      const bundle = `/log/${tilePath({ level: 'entries', index: 1, width: 44 })}`;
      for (const path of [tile, bundle]) await overSocket(url + path); // read once: now in memory
      for (const path of ['/log/checkpoint', tile, bundle, `/log/proof/${ids[257]}`]) {
        const fast = await overSocket(url + path);
        assert.equal(fast.status, 200, path);
        assert.deepEqual(fast, await throughFastify(app, path), path);
      }
      assert.equal(
        (await overSocket(`${url}/log/checkpoint`)).headers['access-control-allow-origin'],
        cors ? '*' : undefined,
      );
    });

    test("an identity's history, once kept: the answer inject gives, never a stale one", async () => {
      const { app, url, create } = await served(0, cors);
      const bearer = { authorization: `Bearer ${TOKEN}` };
      // Identities whose path segment needs escapes, decoded as fastify decodes a parameter.
      const identities = ['alice', 'bob@example.com', 'a/b c', 'zoë+1', "it's:(x)"];
      const firsts = new Map<string, string>();
      for (const identity of identities) firsts.set(identity, await create(identity));
      const pathOf = (identity: string) => `/_cards/identities/${encodeURIComponent(identity)}`;
      for (const identity of identities) {
        const path = pathOf(identity);
        const built = await overSocket(url + path, { headers: bearer }); // through fastify: kept
        assert.equal(built.status, 200, path);
        const fast = await overSocket(url + path, { headers: bearer });
        assert.deepEqual(fast, await throughFastify(app, path, 'GET', bearer), path);
        assert.deepEqual(fast, built, path);
      }
      // Escaped where it need not be: the same identity, the same answer.
      const loose = `/_cards/identities/%61lice`;
      assert.deepEqual(
        await overSocket(url + loose, { headers: bearer }),
        await throughFastify(app, loose, 'GET', bearer),
      );
      // A replacement changes the identity's revision: the next answer holds it.
      const replacement = await create('alice', firsts.get('alice'));
      const after = await overSocket(url + pathOf('alice'), { headers: bearer });
      assert.equal(after.status, 200);
      assert.match(Buffer.from(after.body, 'base64').toString(), new RegExp(replacement));
      assert.deepEqual(after, await throughFastify(app, pathOf('alice'), 'GET', bearer));
    });
  });

describe('first reads, HEAD, query strings and refusals', () => {
  test('a tile not read yet, HEAD, a query string, an unknown card, a bad id', async () => {
    const { app, url, ids } = await served(20, true);
    const tile = `/log/${tilePath({ level: 0, index: 0, width: 20 })}`;
    for (const path of [
      `/log/${tilePath({ level: 'entries', index: 0, width: 20 })}`,
      `${tile}?x=1`,
      `/log/proof/${'ab'.repeat(32)}`,
      '/log/proof/nope',
      `/log/proof/${ids[3]}?x`,
      `/log/tile/9/000`,
    ])
      assert.deepEqual(await overSocket(url + path), await throughFastify(app, path), path);
    const head = await overSocket(url + tile, { method: 'HEAD' });
    assert.deepEqual(head, await throughFastify(app, tile, 'HEAD'));
    assert.equal(
      JSON.parse(Buffer.from((await overSocket(`${url}/log/proof/nope`)).body, 'base64').toString())
        .code,
      '30002',
    );
  });

  test('a history not kept yet, a refused or missing token, an unknown identity, a bad escape', async () => {
    const { app, url, create } = await served(0, true);
    await create('carol');
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const carol = '/_cards/identities/carol';
    // The first read is fastify's (and keeps it); the cases below then reach a kept history.
    assert.deepEqual(
      await overSocket(url + carol, { headers: bearer }),
      await throughFastify(app, carol, 'GET', bearer),
    );
    for (const [path, headers, status] of [
      [carol, {}, 401],
      [carol, { authorization: 'Bearer cards_admin_wrong' }, 401],
      [carol, { authorization: 'Service x.y.z' }, 401],
      [`${carol}?x=1`, bearer, 200],
      [`${carol}/`, bearer, 404],
      ['/_cards/identities/nobody', bearer, 404],
      ['/_cards/identities/%E0%A4%A', bearer, 400],
      [`/_cards/identities/${'c'.repeat(3201)}`, bearer, 400],
    ] as const) {
      const fast = await overSocket(url + path, { headers });
      assert.equal(fast.status, status, `${path.slice(0, 60)} ${JSON.stringify(headers)}`);
      assert.deepEqual(fast, await throughFastify(app, path, 'GET', headers), path.slice(0, 60));
    }
  });

  test('each answer is journaled once, with who asked; a history changed since is made anew', async () => {
    const { app, ids, create } = await served(3, true);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const ask = async (method: 'GET' | 'HEAD', url: string, headers = {}) =>
      (await app.inject({ method, url, headers })).statusCode;
    const first = await create('erin');
    assert.equal(await ask('GET', '/log/checkpoint'), 200);
    assert.equal(await ask('GET', `/log/proof/${ids[1]}`), 200);
    assert.equal(await ask('GET', '/log/tile/entries/000.p/3'), 200, 'not read before');
    assert.equal(await ask('HEAD', '/log/checkpoint'), 200);
    assert.equal(await ask('GET', '/health'), 200);
    assert.equal(await ask('GET', '/_cards/identities/erin', bearer), 200, 'made');
    assert.equal(await ask('GET', '/_cards/identities/erin', bearer), 200, 'kept');
    assert.equal(await ask('GET', '/_cards/identities/erin'), 401, 'no token');
    const second = await create('erin', first);
    const changed = await app.inject({ url: '/_cards/identities/erin', headers: bearer });
    assert.match(changed.body, new RegExp(second), 'changed since');
    const journal = await app.inject({ url: '/_cards/requests?limit=11', headers: bearer });
    const lines = (
      JSON.parse(journal.body) as {
        requests: { method: string; path: string; status: number; identity: string }[];
      }
    ).requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.identity}`);
    assert.deepEqual(lines.reverse(), [
      'POST /card/v5 201 erin',
      'GET /log/checkpoint 200 ',
      `GET /log/proof/${ids[1]} 200 `,
      'GET /log/tile/entries/000.p/3 200 ',
      'HEAD /log/checkpoint 200 ',
      'GET /health 200 ',
      'GET /_cards/identities/erin 200 admin',
      'GET /_cards/identities/erin 200 admin',
      'GET /_cards/identities/erin 401 ',
      'POST /card/v5 201 erin',
      'GET /_cards/identities/erin 200 admin',
    ]);
  });

  test('answers are in the journal and the metrics', async () => {
    const { app, url, create } = await served(5, true);
    await create('dave');
    const history = `${url}/_cards/identities/dave`;
    const bearer = { headers: { authorization: `Bearer ${TOKEN}` } };
    await overSocket(history, bearer); // made, then kept
    await overSocket(history, bearer);
    const kept = await app.inject({
      method: 'GET',
      url: '/_cards/requests?limit=2',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const both = (
      JSON.parse(kept.body) as { requests: { path: string; status: number; identity: string }[] }
    ).requests.map((r) => [r.path, r.status, r.identity]);
    assert.deepEqual(both, [
      ['/_cards/identities/dave', 200, 'admin'],
      ['/_cards/identities/dave', 200, 'admin'],
    ]);
    await overSocket(`${url}/log/checkpoint`);
    const journal = await app.inject({
      method: 'GET',
      url: '/_cards/requests?limit=5',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const last = (JSON.parse(journal.body) as { requests: { path: string; status: number }[] })
      .requests[0];
    assert.deepEqual([last?.path, last?.status], ['/log/checkpoint', 200]);
    const metrics = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.match(metrics.body, /cards_http_requests_total\{route="logCheckpoint",status="200"\} 1/);
  });
});
