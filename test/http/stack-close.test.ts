/**
 * Closing the HTTP stack (src/http/stack.ts) on a real port: an answer in flight on a kept-alive
 * connection is sent whole saying `Connection: close`, its connection is then ended (RFC 9112
 * section 9.6), and close() resolves without waiting for the keep-alive timeout (set here to ten
 * minutes, so waiting for it would fail the test by its time limit rather than pass slowly).
 */
import assert from 'node:assert/strict';
import { Agent, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createStack } from '../../src/http/stack.js';
import { silentLogger } from '../../src/http/request-log.js';
import { awakeTimer } from '../helpers/awake.js';

const TEN_MINUTES = 600_000;

function stack() {
  return createStack({
    logger: silentLogger,
    bodyLimit: 1024,
    limits: { keepAliveTimeoutMs: TEN_MINUTES },
    errorBody: (err) => ({ type: 'text/plain', body: err.message }),
    notFound: (_request, reply) => reply.code(404).send('not found'),
  }).app;
}

/** A GET on `agent`; `closed` settles when its connection closes. */
const get = (url: string, agent: Agent) => {
  let closed!: Promise<void>;
  const answer = new Promise<{ response: IncomingMessage; body: string }>((resolve, reject) => {
    request(url, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    })
      .on('socket', (socket) => {
        closed = new Promise((resolve) => socket.once('close', () => resolve()));
      })
      .on('error', reject)
      .end();
  });
  return { answer, closed: () => closed };
};

test('close() with an answer in flight on a kept-alive connection: the answer is sent, the connection ended, close() resolves', async (t) => {
  const app = stack();
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  app.get('/slow', async (_request, reply) => {
    entered();
    await released;
    return reply.type('text/plain').send('done');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());

  const slow = get(`http://127.0.0.1:${port}/slow`, agent);
  await inHandler;
  const closed = app.close();
  // The answer goes out once the server has stopped listening, so it is in flight at close.
  while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
  release();
  const { response, body } = await slow.answer;
  assert.equal(response.statusCode, 200);
  assert.equal(body, 'done');
  assert.equal(response.headers.connection, 'close', 'the client learns not to reuse it');
  // A timer that keeps the process alive meanwhile (the agent's idle socket does not).
  let limit!: { clear(): void };
  const timedOut = new Promise<never>((_resolve, reject) => {
    limit = awakeTimer(60_000, () =>
      reject(new Error('close() waited for the keep-alive timeout')),
    );
  });
  try {
    await Promise.race([Promise.all([slow.closed(), closed]), timedOut]);
  } finally {
    limit.clear();
  }
});
