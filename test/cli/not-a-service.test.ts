/**
 * A URL that is not a Cards service: an HTML page with 200 or 404, or JSON
 * without the Error object's shape, is said to be "not a Cards service at URL" with its own
 * code (NOT_A_SERVICE) and exit status 6, rather than a misleading refusal or usage error.
 * And a service's own 5xx (10000, 10006) exits 6 as the tables of docs/errors.md say (item 18b).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { WIRE_ERRORS } from '../../src/core/errors.js';
import { EXIT_STATUS } from '../../src/cli/exit-status.js';
import { said, sandbox } from './harness.js';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

async function answering(status: number, type: string, body: string): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': type, connection: 'close' });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const html = '<!doctype html><html><body>Welcome to nginx!</body></html>';
const id = 'a'.repeat(64);
// A real snapshot (so the id asked for is the one answered), its signature holding a deep value.
const snapshot = Buffer.from('{"identity":"a","created_at":1,"version":"5.0","public_key":""}');
const deepId = cardIdOf(snapshot);
const deepCard = JSON.stringify({
  content_snapshot: snapshot.toString('base64'),
  signatures: [{ signer: 'self', signature: 'AA==', extra: 'DEEP' }],
}).replace('"DEEP"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);

test('an HTML page or foreign JSON is "not a Cards service at URL", exit 6', async (t) => {
  const box = sandbox({ CARDS_TOKEN: 'x.y.z' });
  t.after(() => box.cleanup());
  const cases: [string, number, string, string, string[]][] = [
    ['HTML 200', 200, 'text/html', html, ['get', id]],
    ['HTML 404', 404, 'text/html', html, ['get', id]],
    ['HTML 200 to search', 200, 'text/html', html, ['search', 'alice']],
    [
      'foreign JSON 404',
      404,
      'application/json',
      '{"error":"Not Found","status":404}',
      ['get', id],
    ],
    ['foreign JSON 200', 200, 'application/json', '{"hello":"world"}', ['get', id]],
    ['foreign JSON 200 to search', 200, 'application/json', '{"items":[]}', ['search', 'alice']],
    ['a list of no cards to search', 200, 'application/json', '[{"id":1}]', ['search', 'alice']],
    ['a list of lists to search', 200, 'application/json', '[[[]]]', ['search', 'alice']],
    // Nested past any answer of a service: every reader after it (a view, --json) would recurse
    // through it and overflow the stack.
    ['a card nested 100,000 deep', 200, 'application/json', deepCard, ['get', deepId]],
    ['foreign JSON 400', 400, 'application/json', '{"message":"bad"}', ['search', 'alice']],
  ];
  for (const [what, status, type, body, args] of cases) {
    const url = await answering(status, type, body);
    const r = await box.cards([...args, '--url', url]);
    assert.equal(r.status, 6, `${what}: ${said(r)}`);
    assert.match(r.stderr, /NOT_A_SERVICE/, `${what}: ${said(r)}`);
    assert.ok(r.stderr.includes(`not a Cards service at ${url}`), `${what}: ${said(r)}`);
  }
  // A real Error object is still understood.
  const url = await answering(404, 'application/json', '{"code":"10001","message":"nope"}');
  const notFound = await box.cards(['get', id, '--url', url]);
  assert.equal(notFound.status, 3, said(notFound));
  assert.match(notFound.stderr, /CARD_NOT_FOUND/);
});

test("a service's 5xx (10000, 10006) exits 6, the status its table row gives", async (t) => {
  const box = sandbox({ CARDS_TOKEN: 'x.y.z' });
  t.after(() => box.cleanup());
  for (const code of ['INTERNAL', 'STORE_UNAVAILABLE'] as const) {
    const { wire, message } = WIRE_ERRORS[code];
    const url = await answering(500, 'application/json', `{"code":"${wire}","message":"x"}`);
    const r = await box.cards(['get', id, '--url', url]);
    assert.equal(r.status, 6, said(r));
    assert.equal(EXIT_STATUS[code], r.status, `${code}: the table's exit is what the CLI does`);
    // The service's own message, a sentence, is quoted ending in one full stop.
    const own = await answering(500, 'application/json', JSON.stringify({ code: wire, message }));
    const quoted = await box.cards(['get', id, '--url', own]);
    assert.ok(quoted.stderr.includes(`${code} (${wire}): ${message}`), said(quoted));
    assert.doesNotMatch(quoted.stderr, /\.\./, said(quoted));
  }
  // So are the messages of a refusal the CLI has no code for.
  for (const status of [404, 418]) {
    const url = await answering(status, 'application/json', '{"code":"1","message":"Go away."}');
    const r = await box.cards(['get', id, '--url', url]);
    assert.ok(r.stderr.includes('Go away.'), said(r));
    assert.doesNotMatch(r.stderr, /\.\./, said(r));
  }
});

// Under --json a failure prints one error object on stdout (as gh does),
// besides the message on stderr, so a script reads one JSON document either way.
test('--json on error: {"error":{name,code,message,hint}} on stdout', async (t) => {
  const box = sandbox({ CARDS_TOKEN: 'x.y.z' });
  t.after(() => box.cleanup());
  const url = await answering(200, 'text/html', html);
  const r = await box.cards(['get', id, '--url', url, '--json']);
  assert.equal(r.status, 6, said(r));
  const { error } = r.json<{ error: Record<string, unknown> }>();
  assert.equal(error.name, 'NOT_A_SERVICE');
  assert.equal(error.code, 90019);
  assert.match(String(error.message), /not a Cards service at/);
  assert.equal(typeof error.hint, 'string');
  assert.match(r.stderr, /NOT_A_SERVICE/);
  const missing = await box.cards(['inspect', 'nope.json', '--json']);
  assert.equal(missing.status, 3, said(missing));
  assert.equal(missing.json<{ error: { name: string } }>().error.name, 'FILE_NOT_FOUND');
  const plain = await box.cards(['get', id, '--url', url]);
  assert.equal(plain.stdout, '', 'without --json stdout stays empty');
});
