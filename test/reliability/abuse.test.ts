/**
 * Abuse limits, against a real `cards serve`: the 64 KiB body limit (413), slow
 * clients (200 connections trickling their headers a byte a second while normal requests are
 * answered in milliseconds; idle, slow-header and slow-body connections closed by the
 * configured timeouts, shortened here with --request-timeout, and the defaults checked to be
 * within 60 s), at most 50 identities per search, 503 with the Error object past the
 * connection cap (a small --max-connections), malformed HTTP always a 4xx.
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { makeContext } from '../helpers/context.js';
import type { ServeFlags } from '../../src/cli/commands/serve/settings.js';
import { serverOptions } from '../../src/cli/commands/serve/settings.js';
import { startServing } from '../../src/server/start.js';
import { silentLogger } from '../../src/http/request-log.js';
import { makeTempDir, startServer, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { commandOptions } from '../cli/harness.js';
import { makeCard } from '../http/card-kit.js';
import {
  call,
  errorCodeOf,
  openSocket,
  parseRawResponse,
  rawExchange,
  replyCode,
  storeBytes,
  tokenFor,
} from './kit.js';

/** A request on its own connection with an exact body of `body` bytes. */
async function postBytes(
  server: Served,
  path: string,
  body: string,
  extra = '',
): Promise<{
  status: number;
  code: string | undefined;
}> {
  const token = await tokenFor(server, 'alice');
  const { text } = await rawExchange(
    server.url,
    `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Service ${token}\r\n` +
      `Content-Type: application/json\r\n${extra}\r\n${body}`,
  );
  const response = parseRawResponse(text);
  assert.ok(response, `a response to ${path}`);
  return {
    status: response.status,
    code: response.status >= 400 ? errorCodeOf(response.status, response.body, path) : undefined,
  };
}

/** Waits for a socket to be closed by the server; resolves with what it received and when. */
function closedBy(socket: Socket, started: number): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
  });
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

describe('abuse limits', () => {
  test('bodies over 64 KiB get 413 with the Error object, at the exact boundary and chunked', async (t) => {
    const server = await startInProcess({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const before = storeBytes(server.paths);
    const sized = (n: number): string => {
      const wrapper = '{"content_snapshot":""}';
      return `{"content_snapshot":"${'A'.repeat(n - wrapper.length)}"}`;
    };
    assert.equal(LIMITS.bodyMax, 65_536);
    const exact = sized(65_536);
    const over = sized(65_537);
    for (const path of ['/card/v5', '/card/v5/actions/revoke', '/card/v5/actions/search']) {
      const atLimit = await postBytes(server, path, exact, `Content-Length: ${exact.length}\r\n`);
      assert.equal(atLimit.status, 400, `${path}: 64 KiB is read and refused for what it is`);
      assert.notEqual(atLimit.code, 'BODY_TOO_LARGE');
      const tooBig = await postBytes(server, path, over, `Content-Length: ${over.length}\r\n`);
      assert.deepEqual(tooBig, { status: 413, code: 'BODY_TOO_LARGE' }, path);
    }
    // No Content-Length: chunked, 100 KiB in 1 KiB chunks.
    const chunk = 'A'.repeat(1024);
    const chunked = `${Array.from({ length: 100 }, () => `400\r\n${chunk}\r\n`).join('')}0\r\n\r\n`;
    assert.deepEqual(
      await postBytes(server, '/card/v5', chunked, 'Transfer-Encoding: chunked\r\n'),
      { status: 413, code: 'BODY_TOO_LARGE' },
    );
    // A huge declared length is refused without waiting for the body.
    assert.deepEqual(
      await postBytes(server, '/card/v5', '{}', 'Content-Length: 1000000000000\r\n'),
      { status: 413, code: 'BODY_TOO_LARGE' },
    );
    assert.equal(storeBytes(server.paths), before);
    assert.equal(
      (await call(server, 'POST', '/card/v5', { body: makeCard('alice').raw })).status,
      201,
    );
  });

  test('200 connections trickling headers a byte a second: others answered in ms, trickles closed by the timeout; 503 past the cap', async (t) => {
    const server = await startServer({
      args: ['--quiet', '--request-timeout', '3', '--max-connections', '300'],
    });
    const sockets: Socket[] = [];
    t.after(async () => {
      for (const socket of sockets) socket.destroy();
      await server.dispose();
    });
    const started = Date.now();
    const slow = await Promise.all(Array.from({ length: 200 }, () => openSocket(server.url)));
    sockets.push(...slow);
    const trickled = slow.map((socket) => closedBy(socket, started));
    const header = 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ';
    const trickle = setInterval(() => {
      const elapsed = Math.floor((Date.now() - started) / 1000);
      for (const socket of slow) if (!socket.destroyed) socket.write(header[elapsed] ?? 'a');
    }, 1000);
    t.after(() => clearInterval(trickle));
    for (const socket of slow) socket.write(header[0] as string);

    // A slow body (headers complete, a byte every 200 ms) and an idle connection (nothing sent).
    const token = await tokenFor(server, 'alice');
    const slowBody = await openSocket(server.url);
    const idle = await openSocket(server.url);
    sockets.push(slowBody, idle);
    const slowBodyClosed = closedBy(slowBody, Date.now());
    const idleClosed = closedBy(idle, Date.now());
    slowBody.write(
      `POST /card/v5/actions/search HTTP/1.1\r\nHost: x\r\nAuthorization: Service ${token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const bodyTrickle = setInterval(() => slowBody.destroyed || slowBody.write(' '), 200);
    t.after(() => clearInterval(bodyTrickle));

    // Meanwhile, normal requests.
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const at = performance.now();
      const reply =
        i % 2 === 0
          ? await call(server, 'GET', '/health', { identity: null })
          : await call(server, 'POST', '/card/v5/actions/search', { body: { identity: 'alice' } });
      latencies.push(performance.now() - at);
      assert.equal(reply.status, 200);
    }
    t.diagnostic(
      `latency with 200 trickling connections: median ${median(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    assert.ok(median(latencies) < 100, `median ${median(latencies)} ms`);
    assert.ok(Math.max(...latencies) < 2000, `max ${Math.max(...latencies)} ms`);

    // Past the cap (300): new connections get 503 with the Error object, not a dropped socket.
    const filler = await Promise.all(Array.from({ length: 110 }, () => openSocket(server.url)));
    sockets.push(...filler);
    const probes = await Promise.all(
      Array.from({ length: 10 }, () =>
        rawExchange(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 2_000),
      ),
    );
    for (const probe of probes) {
      const response = parseRawResponse(probe.text);
      assert.ok(response, `an answer, not a dropped connection: ${JSON.stringify(probe.text)}`);
      assert.equal(errorCodeOf(response.status, response.body, 'over the cap'), 'SERVER_BUSY');
      assert.match(probe.text, /connection: close/i);
    }
    for (const socket of filler) socket.destroy();

    // The server closes every trickling connection once its header time (3 s) is up.
    const results = await Promise.all(trickled);
    for (const { text, ms } of results) {
      assert.ok(ms >= 2_500 && ms < 6_000, `closed after ${ms} ms`);
      const response = parseRawResponse(text);
      assert.ok(response, 'a 408, not a silent close');
      assert.equal(errorCodeOf(response.status, response.body, 'trickle'), 'REQUEST_TIMEOUT');
    }
    const body = await slowBodyClosed;
    assert.ok(body.ms < 6_000, `slow body closed after ${body.ms} ms`);
    assert.match(body.text, /^HTTP\/1\.1 408 /);
    const nothing = await idleClosed;
    assert.ok(nothing.ms < 6_000, `idle connection closed after ${nothing.ms} ms`);
    assert.equal((await call(server, 'GET', '/health', { identity: null })).status, 200);
  });

  test('the default limits: headers, request and idle timeouts within 60 s; a cap well above 200', async () => {
    const dir = makeTempDir('cards-limits-');
    const ctx = makeContext({ cwd: dir, env: { CARDS_HOME: join(dir, 'home') } });
    const flags = await commandOptions<ServeFlags>(ctx, [
      'serve',
      '--db',
      'cards.json',
      '--port',
      '0',
    ]);
    const options = serverOptions(ctx, flags, 'test');
    assert.ok(options.maxConnections >= 1000, `default cap ${options.maxConnections}`);
    const running = await startServing(options, silentLogger);
    try {
      const http = running.app.server;
      for (const [name, ms] of [
        ['headersTimeout', http.headersTimeout],
        ['requestTimeout', http.requestTimeout],
        ['keepAliveTimeout', http.keepAliveTimeout],
        ['timeout (idle socket)', http.timeout],
      ] as const) {
        assert.ok(ms > 0 && ms <= 60_000, `${name} ${ms} ms`);
      }
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('at most 50 identities per search', async (t) => {
    const server = await startInProcess({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `user${i}`);
    const search = (body: unknown) => call(server, 'POST', '/card/v5/actions/search', { body });
    assert.equal((await search({ identities: names(50) })).status, 200);
    assert.equal(replyCode(await search({ identities: names(51) })), 'SEARCH_TOO_MANY');
    assert.equal(replyCode(await search({ identities: names(5000) })), 'SEARCH_TOO_MANY');
    assert.equal(
      replyCode(await search({ identities: [...names(50), 'user0'] })),
      'SEARCH_TOO_MANY',
      'repeats count',
    );
    assert.equal(replyCode(await search({ identities: [] })), 'SEARCH_EMPTY');
  });

  test('malformed HTTP gets a 4xx with the Error object, never a 5xx', async (t) => {
    const server = await startInProcess({ args: ['--quiet', '--request-timeout', '2'] });
    t.after(() => server.dispose());
    const token = await tokenFor(server, 'alice');
    const auth = `Connection: close\r\nAuthorization: Service ${token}\r\n`;
    const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
    const cases: [string, string][] = [
      ['bad escape %zz', get('/card/v5/%zz')],
      ['truncated escape', get('/card/v5/%')],
      ['truncated UTF-8 escape', get('/card/v5/%E0%A4%A')],
      ['overlong UTF-8 escape', get('/card/v5/%c0%ae%c0%ae')],
      ['escaped NUL', get('/card/v5/%00')],
      ['escaped slash in an id', get(`/card/v5/${'a'.repeat(32)}%2F${'a'.repeat(29)}`)],
      [
        'bad escape in a revoke id',
        `POST /card/v5/actions/revoke/%zz HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 0\r\n\r\n`,
      ],
      ['no path, no version', 'GET\r\n\r\n'],
      ['unknown HTTP version', 'GET /health HTTP/9.9\r\nHost: x\r\n\r\n'],
      ['version first', 'HTTP/1.1 GET /health\r\nHost: x\r\n\r\n'],
      ['bad method token', 'G@T /health HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['lowercase method', 'get /health HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['space in the path', 'GET /card v5 HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['control byte in the path', 'GET /card/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['binary garbage', '\u0000\u0001\u0002\u00ff\r\n\r\n'],
      [
        'TLS hello on the HTTP port',
        '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
      ],
      ['header without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n'],
      ['NUL in a header value', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
      ['no Host header', 'GET /health HTTP/1.1\r\n\r\n'],
      [
        'negative Content-Length',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: -1\r\n\r\n`,
      ],
      [
        'Content-Length not a number',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: abc\r\n\r\n`,
      ],
      [
        'two different Content-Lengths',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      ],
      [
        'Content-Length and chunked',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
      ],
      [
        'bad chunk size',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      ],
      [
        'unknown transfer coding',
        `POST /card/v5 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}`,
      ],
      ['CONNECT, as to a proxy', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'],
      ['CONNECT to a path', 'CONNECT /health HTTP/1.1\r\nHost: x\r\n\r\n'],
      [
        'an expectation other than 100-continue',
        `POST /card/v5/actions/search HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`,
      ],
      ['a 20 KB URL', get(`/card/v5/${'a'.repeat(20_000)}`)],
      ['a 300-character id', get(`/card/v5/${'a'.repeat(300)}`)],
    ];
    const before = storeBytes(server.paths);
    const wrong: string[] = [];
    for (const [name, request] of cases) {
      const { text, ms } = await rawExchange(server.url, Buffer.from(request, 'latin1'));
      const response = parseRawResponse(text);
      if (!response) wrong.push(`${name}: no HTTP response (${JSON.stringify(text.slice(0, 60))})`);
      else if (response.status < 400 || response.status >= 500)
        wrong.push(`${name}: ${response.status}`);
      else if (ms > 3_000) wrong.push(`${name}: connection held for ${ms} ms`);
      else {
        try {
          errorCodeOf(response.status, response.body, name);
        } catch (err) {
          wrong.push(`${name}: ${(err as Error).message} (${JSON.stringify(text)})`);
        }
      }
    }
    assert.deepEqual(wrong, []);
    assert.equal(storeBytes(server.paths), before);
    assert.equal((await call(server, 'GET', '/health', { identity: null })).status, 200);
  });
});
