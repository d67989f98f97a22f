/**
 * The log's fast path (src/http/log-fast-path.ts): over a real socket, the checkpoint, a tile
 * already read and a proof are answered before fastify, and must be the same answers fastify
 * gives (compared with `inject`, which never reaches the socket): status, body, every header
 * but the date, with CORS on and off; they are recorded in the request journal and the metrics
 * like any request. What the fast path passes on (a tile not read yet, HEAD, a query string, an
 * unknown card, a bad id) gets fastify's answer.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64 } from '../../src/core/encoding.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { logFastPath } from '../../src/http/log-fast-path.js';
import { tilePath } from '../../src/log/tile-path.js';
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
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const token = await mintToken({
      key: appKey,
      identity: `u${i}`,
      now: Date.now(),
      ttlSeconds: 60,
    });
    const r = await app.inject({
      method: 'POST',
      url: '/card/v5',
      payload: JSON.stringify(makeCard(`u${i}`).raw),
      headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
    });
    assert.equal(r.statusCode, 201, r.body);
    const snapshot = (JSON.parse(r.body) as { content_snapshot: string }).content_snapshot;
    ids.push(cardIdOf(decodeBase64(snapshot) as Uint8Array));
  }
  await log.integrate();
  assert.equal(log.size, n);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  closers.push(async () => {
    await app.close();
    await log.close();
  });
  return { app, log, url, ids };
}

type Answer = { status: number; body: string; headers: Record<string, string> };

const overSocket = async (url: string, init: RequestInit = {}): Promise<Answer> => {
  // A request the server never answers fails here by its path, not as the file's timeout.
  const r = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) }).catch(
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
): Promise<Answer> => {
  const r = await app.inject({ method, url, headers: { host: 'localhost' } });
  const headers = Object.fromEntries(
    Object.entries(r.headers)
      .filter(([name]) => !SOCKET_ONLY.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
  return { status: r.statusCode, body: r.rawPayload.toString('base64'), headers };
};

for (const cors of [true, false])
  describe(`the log's fast path (CORS ${cors ? 'on' : 'off'})`, { timeout: 60_000 }, () => {
    test('checkpoint, a tile read before, a bundle and a proof: the answers fastify gives', async () => {
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
  });

describe("what the log's fast path passes on", { timeout: 60_000 }, () => {
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

  test('answers only what it can without I/O; passes the rest on', async () => {
    const { log, ids } = await served(3, true);
    const calls: string[] = [];
    const recorded: string[] = [];
    const handler = logFastPath({
      log,
      headers: {},
      passOn: () => false,
      served: (route, path) => recorded.push(`${route} ${path}`),
    })((request) => calls.push(`${request.method} ${request.url}`));
    const ask = (method: string, url: string) =>
      new Promise<number>((resolve) => {
        const response = {
          writeHead: (status: number) => resolve(status),
          end: () => undefined,
        };
        handler(
          { method, url, httpVersion: '1.1', headers: { host: 'x' } } as never,
          response as never,
        );
        setTimeout(() => resolve(0), 200);
      });
    assert.equal(await ask('GET', '/log/checkpoint'), 200);
    assert.equal(await ask('GET', `/log/proof/${ids[1]}`), 200);
    assert.equal(await ask('GET', '/log/tile/entries/000.p/3'), 0, 'not in memory yet');
    assert.equal(await ask('HEAD', '/log/checkpoint'), 0);
    assert.equal(await ask('GET', '/health'), 0);
    assert.deepEqual(calls, [
      'GET /log/tile/entries/000.p/3',
      'HEAD /log/checkpoint',
      'GET /health',
    ]);
    assert.deepEqual(recorded, ['logCheckpoint /log/checkpoint', `logProof /log/proof/${ids[1]}`]);
  });

  test('answers are in the journal and the metrics', async () => {
    const { app, url } = await served(5, true);
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
