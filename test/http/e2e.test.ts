/**
 * The server on a real port (port 0, loopback, temp dirs): the API over fetch, restart and crash
 * recovery, the one-server-per-store and corrupt-store refusals, and the connection-level errors
 * inject cannot reach (malformed request, huge headers, slow client, too many connections).
 * What is about the process (its banner and stop line, SIGTERM, kill -9, a second process on
 * the same store) runs `cards serve`; the rest, and restarts after a kill, run in-process. e2e-postgres.test.ts runs it against `cards serve --store
 * postgres://…` (CARDS_TEST_ENGINE=postgres): what is stored is then read from the database,
 * and the JSON file's own matters (its journal, lock, compaction, a corrupt file) are left out.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test, type TestContext } from 'node:test';
import { codeForWire } from '../../src/core/errors.js';
import {
  makeTempDir,
  removeTempDirs,
  runServeToExit,
  startServer,
  type Served,
} from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { disposer } from '../reliability/kit.js';
import { makeCard } from './card-kit.js';
import { readFixture } from '../helpers/fixtures.js';
import { sql } from '../helpers/postgres.js';

after(removeTempDirs);

const onPostgres = process.env.CARDS_TEST_ENGINE === 'postgres';
/** The JSON store file's own tests (journal, lock, compaction): not part of the PostgreSQL run. */
const fileTest = (name: string, fn: (t: TestContext) => Promise<void>): void => {
  if (!onPostgres) test(name, fn);
};

/** The ids stored, in insertion order: the store file, or the database the server used. */
async function storedIds(server: Served): Promise<string[]> {
  if (server.store !== undefined)
    return (await sql<{ id: string }>(server.store, 'SELECT id FROM cards ORDER BY seq')).map(
      (row) => row.id,
    );
  const file = JSON.parse(readFileSync(server.paths.store, 'utf8')) as { cards: { id: string }[] };
  return file.cards.map((card) => card.id);
}

async function api(
  server: Served,
  method: string,
  path: string,
  options: { body?: unknown; identity?: string; scheme?: string } = {},
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = {
    authorization: `${options.scheme ?? 'Service'} ${await server.token(options.identity ?? 'alice')}`,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

/** Sends raw bytes on a fresh connection; resolves with everything the server wrote back. */
function rawExchange(
  url: string,
  send: string | ((socket: import('node:net').Socket) => void),
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (err) => (received ? resolve(received) : reject(err)));
    socket.on('close', () => resolve(received));
    socket.on('connect', () => (typeof send === 'string' ? socket.write(send) : send(socket)));
  });
}

const wireCodeOf = (response: string): string | undefined => {
  const body = response.slice(response.indexOf('\r\n\r\n') + 4);
  return codeForWire((JSON.parse(body) as { code: string }).code);
};

describe('cards serve end to end', () => {
  test('serve, restart with the same cards and service key, clean shut-down', async (t) => {
    const keep = disposer(t);
    const server = keep(await startServer());
    assert.match(
      server.stdout(),
      onPostgres
        ? /^store: PostgreSQL postgres:.* \(0 cards\)$/m
        : /^store: .*cards\.json \(0 cards\)$/m,
    );
    assert.match(server.stdout(), /^profile: service /m);
    const a = makeCard('alice');
    const b = makeCard('alice', { previousCardId: a.id });
    assert.equal((await api(server, 'POST', '/card/v5', { body: a.raw })).status, 201);
    assert.equal((await api(server, 'POST', '/v5/card', { body: b.raw })).status, 201);
    const health = await fetch(`${server.url}/health`);
    assert.deepEqual(((await health.json()) as { cards: number }).cards, 2);

    const stopped = await server.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /^stopped: 2 cards in /m);
    assert.deepEqual(await storedIds(server), [a.id, b.id]);
    if (!onPostgres) {
      assert.ok(!existsSync(server.paths.journal), 'journal folded in and removed');
      assert.ok(!existsSync(server.paths.lock), 'lock released');
    }
    assert.match(stopped.stderr, /POST \/card\/v5 201 [\d.]+ms/);

    const again = keep(await startInProcess({ dir: server.dir }));
    assert.equal(again.serviceKey, server.serviceKey);
    assert.match(again.stdout(), /\(2 cards\)/);
    const old = await api(again, 'GET', `/card/${a.id}`);
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('x-service-is-superseeded'), 'true');
    assert.equal(
      (
        (await api(again, 'POST', '/card/actions/search', { body: { identity: 'alice' } }))
          .json as unknown[]
      ).length,
      2,
    );
  });

  test('SIGTERM under load: requests in flight finish, every acknowledged card is in the file', async (t) => {
    const server = await startServer({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const token = await server.token('dave');
    const cards = Array.from({ length: 60 }, () => makeCard('dave'));
    let signalled = false;
    const sent = cards.map(async (c) => {
      try {
        const response = await fetch(`${server.url}/card/v5`, {
          method: 'POST',
          headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(c.raw),
        });
        if (!signalled) {
          signalled = true; // the first answer: stop the server with the others in flight
          server.proc.kill('SIGTERM');
        }
        return response.status === 201 ? c.id : undefined;
      } catch {
        return undefined; // refused once the server stopped accepting
      }
    });
    const acknowledged = (await Promise.all(sent)).filter((id) => id !== undefined);
    // No second signal: one arriving while the process tears down would end it by default.
    const exit = await server.exited();
    assert.equal(exit.code, 0, exit.stderr);
    const stored = new Set(await storedIds(server));
    assert.ok(acknowledged.length > 0);
    for (const id of acknowledged) assert.ok(stored.has(id), `acknowledged ${id} is stored`);
    if (!onPostgres) assert.ok(!existsSync(server.paths.journal));
  });

  fileTest(
    'a second server on the same store is refused; a corrupt store is refused untouched',
    async (t) => {
      const server = await startServer();
      t.after(() => server.dispose());
      const second = await runServeToExit(['--port', '0', '--db', server.paths.store], {
        process: true,
      });
      assert.equal(second.code, 1);
      assert.match(second.stderr, /STORE_LOCKED.*pid \d+/);
      assert.equal(second.stdout, '');

      const dir = makeTempDir();
      const db = join(dir, 'cards.json');
      for (const text of [
        '{"format":"cards-store","version":1,"cards":[',
        '{"format":"cards-store","version":9,"cards":[]}',
      ]) {
        writeFileSync(db, text);
        const refused = await runServeToExit(['--port', '0', '--db', db]);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /STORE_CORRUPT/);
        assert.equal(readFileSync(db, 'utf8'), text);
      }
    },
  );

  test('after kill -9 the journal is replayed: every acknowledged card is back', async (t) => {
    // On PostgreSQL: every acknowledged card is there after kill -9 (nothing to replay).
    const keep = disposer(t);
    const server = keep(await startServer({ args: ['--quiet'] }));
    const cards = Array.from({ length: 20 }, (_, i) => makeCard(`user${i % 3}`));
    const results = await Promise.all(
      cards.map((c, i) =>
        api(server, 'POST', '/card/v5', { body: c.raw, identity: `user${i % 3}` }),
      ),
    );
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([201]));
    const killed = await server.kill();
    assert.equal(killed.signal, 'SIGKILL');
    if (!onPostgres) {
      assert.equal((await storedIds(server)).length, 0);
      assert.ok(existsSync(server.paths.lock), 'the dead server left its lock');
      // A torn last line, as a crash in the middle of a write leaves it.
      writeFileSync(server.paths.journal, `${readFileSync(server.paths.journal, 'utf8')}{"id":"ab`);
    } else assert.equal((await storedIds(server)).length, 20);

    const again = keep(await startInProcess({ dir: server.dir, args: ['--quiet'] }));
    assert.match(again.stdout(), /\(20 cards\)/);
    for (const c of cards) assert.equal((await api(again, 'GET', `/card/v5/${c.id}`)).status, 200);
  });

  fileTest('background compaction under load, then kill -9: nothing lost', async (t) => {
    const keep = disposer(t);
    const server = keep(await startServer({ args: ['--quiet', '--compact-bytes', '3000'] }));
    const cards = Array.from({ length: 40 }, () => makeCard('carol'));
    for (let i = 0; i < cards.length; i += 8)
      await Promise.all(
        cards
          .slice(i, i + 8)
          .map((c) => api(server, 'POST', '/card/v5', { body: c.raw, identity: 'carol' })),
      );
    const fileCards = (JSON.parse(readFileSync(server.paths.store, 'utf8')) as { cards: [] }).cards
      .length;
    assert.ok(fileCards > 0, 'compacted while serving');
    await server.kill();
    const again = keep(await startInProcess({ dir: server.dir, args: ['--quiet'] }));
    const found = await api(again, 'POST', '/card/v5/actions/search', {
      body: { identity: 'carol' },
      identity: 'carol',
    });
    assert.equal((found.json as unknown[]).length, 40);
  });

  test('racing requests over HTTP: one winner', async (t) => {
    const server = await startInProcess({ args: ['--quiet'] });
    t.after(() => server.dispose());
    const a = makeCard('alice');
    const same = await Promise.all(
      Array.from({ length: 12 }, () => api(server, 'POST', '/card/v5', { body: a.raw })),
    );
    assert.deepEqual(same.map((r) => r.status).sort(), [201, ...Array(11).fill(400)]);
    const replacements = await Promise.all(
      Array.from({ length: 8 }, () =>
        api(server, 'POST', '/card/v5', { body: makeCard('alice', { previousCardId: a.id }).raw }),
      ),
    );
    assert.equal(replacements.filter((r) => r.status === 201).length, 1);
    for (const r of replacements.filter((r) => r.status !== 201))
      assert.deepEqual(r.json, { code: '40037', message: (r.json as { message: string }).message });
  });

  test('the virgil profile end to end', async (t) => {
    const server = await startInProcess({ args: ['--compat', 'virgil', '--quiet'] });
    t.after(() => server.dispose());
    assert.match(server.stdout(), /^profile: virgil \(Authorization: Virgil <token>/m);
    const missing = await api(server, 'GET', `/card/v5/${'0'.repeat(64)}`, { scheme: 'Virgil' });
    assert.deepEqual(missing.json, { code: 10001, message: 'Requested card entity not found.' });
    const a = makeCard('alice');
    const created = await api(server, 'POST', '/card/v5', { body: a.raw, scheme: 'Virgil' });
    assert.equal(
      (created.json as { signatures: { signer: string }[] }).signatures[1]?.signer,
      'virgil',
    );
  });
});

describe('cards made by the stock client (fixtures/stock-client-cards.json)', () => {
  interface Fixture {
    cards: { name: string; card: unknown; card_id: string; identity: string }[];
    tokens: {
      name: string;
      jwt: string;
      app_id: string;
      app_key_id: string;
      app_public_key_base64: string;
    }[];
  }
  test('virgil profile with the vendor app key: stock tokens and stock cards are accepted as made', async (t) => {
    const fixture = readFixture<Fixture>('stock-client-cards.json');
    const token = (name: string): string =>
      fixture.tokens.find((x) => x.name === name)?.jwt as string;
    const app = fixture.tokens[0] as Fixture['tokens'][0];
    const server = await startInProcess({
      args: [
        '--compat',
        'virgil',
        '--jwt-key',
        app.app_public_key_base64,
        '--app-id',
        app.app_id,
        '--app-key-id',
        app.app_key_id,
        '--quiet',
      ],
    });
    t.after(() => server.dispose());
    const send = async (method: string, path: string, tokenName: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Virgil ${token(tokenName)}`,
          'content-type': 'application/json',
          'virgil-agent': 'sdk;js;Node20/linux;6.2.0',
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    for (const card of fixture.cards) {
      const created = await send('POST', '/card/v5', `${card.identity}-valid`, card.card);
      assert.equal(created.status, 201, `${card.name}: ${JSON.stringify(created.json)}`);
      assert.equal(
        created.json.content_snapshot,
        (card.card as { content_snapshot: string }).content_snapshot,
      );
      const got = await send('GET', `/card/v5/${card.card_id}`, `${card.identity}-valid`);
      assert.equal(got.status, 200, card.name);
    }
    const expired = await send('POST', '/card/v5/actions/search', 'alice-expired', {
      identities: ['alice'],
    });
    assert.deepEqual(expired, {
      status: 401,
      json: { code: 20304, message: 'Token has expired.' },
    });
    const found = await send('POST', '/card/v5/actions/search', 'bob-valid', {
      identities: ['alice', 'bob'],
    });
    assert.equal((found.json as unknown as unknown[]).length, 4);
  });
});

describe('connection-level errors', () => {
  test('malformed request line 400, huge headers 431, slow client 408', async (t) => {
    const server = await startInProcess({ args: ['--request-timeout', '1', '--quiet'] });
    t.after(() => server.dispose());
    const malformed = await rawExchange(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(malformed, /^HTTP\/1\.1 400 /);
    assert.equal(wireCodeOf(malformed), 'HTTP_MALFORMED');
    const huge = await rawExchange(
      server.url,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assert.match(huge, /^HTTP\/1\.1 431 /);
    assert.equal(wireCodeOf(huge), 'HEADERS_TOO_LARGE');
    const started = Date.now();
    const slow = await rawExchange(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    assert.match(slow, /^HTTP\/1\.1 408 /);
    assert.equal(wireCodeOf(slow), 'REQUEST_TIMEOUT');
    assert.ok(Date.now() - started < 5_000);
  });

  test('connections over --max-connections get 503 SERVER_BUSY, then service resumes', async (t) => {
    const server = await startInProcess({ args: ['--max-connections', '2', '--quiet'] });
    t.after(() => server.dispose());
    const { hostname, port } = new URL(server.url);
    const idle = [connect(Number(port), hostname), connect(Number(port), hostname)];
    await Promise.all(idle.map((s) => new Promise((resolve) => s.on('connect', resolve))));
    const busy = await rawExchange(
      server.url,
      'GET /health HTTP/1.1\r\nHost: x\r\nOrigin: http://app.example\r\n\r\n',
    );
    assert.match(busy, /^HTTP\/1\.1 503 /);
    assert.match(busy, /connection: close/i);
    assert.equal(wireCodeOf(busy), 'SERVER_BUSY');
    // a page of another origin reads the refusal as any answer of a CORS route (Fetch standard,
    // CORS check): the headers the CORS plugin sends, though its hook never ran
    assert.match(busy, /^access-control-allow-origin: \*\r$/im);
    assert.match(busy, /^access-control-expose-headers: .+\r$/im);
    // a route without CORS (the OpenAPI document) gets none
    const plain = await rawExchange(
      server.url,
      'GET /openapi.json HTTP/1.1\r\nHost: x\r\nOrigin: http://app.example\r\n\r\n',
    );
    assert.equal(wireCodeOf(plain), 'SERVER_BUSY');
    assert.doesNotMatch(plain, /access-control-/i);
    for (const s of idle) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});
