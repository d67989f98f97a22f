/**
 * `cards serve --accept-any-token` takes its unverified tokens from this machine only, against a
 * real server on port 0. The card and e3kit routes answer CORS `*` and allow the Authorization
 * header, so any site a developer visited could send a token it made up for any identity to
 * such a server on 127.0.0.1 (a preflight, then the request) and read or overwrite that
 * identity's cards, Keyknox backups and group tickets; a DNS-rebinding page (its own name
 * resolved to 127.0.0.1) could do the same without CORS. Every such request was 200. Now a
 * request whose Host is not a loopback name, or whose Origin is a page of another machine, is
 * 401 `TOKEN_NOT_LOCAL` (20308) and changes nothing; pages served from this machine (a front end
 * on localhost:5173 calling the API on 127.0.0.1) and clients that send no Origin work as before,
 * and a server that verifies its tokens answers every origin as before.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';

after(removeTempDirs);

/** A token no server trusts: any key will do under --accept-any-token. */
const forged = (identity: string): string =>
  mintToken({
    key: generatePrivateKey(),
    identity,
    now: Date.now(),
    ttlSeconds: 600,
    format: 'stock',
    appId: 'app',
    kid: 'k',
  });

interface Answer {
  readonly status: number;
  readonly code: number | undefined;
  readonly text: string;
}

/** A request with exactly these headers (fetch cannot set Host). */
function send(
  server: InProcessServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const url = new URL(server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          ...(payload !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let code: number | undefined;
          try {
            code = (JSON.parse(text) as { code?: number }).code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, code, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('--accept-any-token: tokens from this machine only', () => {
  test('another site, or a rebinding name, gets 401 20308 and changes nothing', async (t) => {
    const server = await startInProcess({
      args: ['--compat', 'virgil', '--accept-any-token', '--quiet', '--no-log'],
    });
    t.after(() => server.dispose());
    const port = new URL(server.url).port;
    const auth = (identity: string) => ({ authorization: `Virgil ${forged(identity)}` });
    const local = { host: `127.0.0.1:${port}` };

    // alice's backup, stored from this machine.
    const stored = await send(
      server,
      'PUT',
      '/keyknox/v1',
      { ...local, ...auth('alice') },
      {
        meta: b64('m'),
        value: b64('alice backup'),
      },
    );
    assert.equal(stored.status, 200, stored.text);

    const hostile: [string, Record<string, string>][] = [
      ['a page of another site', { ...local, origin: 'https://evil.example' }],
      ['a sandboxed page (Origin null)', { ...local, origin: 'null' }],
      ['a rebinding name', { host: `evil.example:${port}` }],
      [
        'a rebinding name with its own origin',
        { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      ],
    ];
    for (const [what, from] of hostile) {
      const reads = [
        await send(server, 'GET', '/keyknox/v1', { ...from, ...auth('alice') }),
        await send(
          server,
          'POST',
          '/card/v5/actions/search',
          { ...from, ...auth('alice') },
          {
            identity: 'alice',
          },
        ),
        await send(
          server,
          'POST',
          '/pythia/v1/brainkey',
          { ...from, ...auth('alice') },
          {
            blinded_password: b64('x'),
          },
        ),
      ];
      const writes = [
        await send(
          server,
          'PUT',
          '/keyknox/v1',
          { ...from, ...auth('alice') },
          {
            meta: b64('m'),
            value: b64('overwritten'),
          },
        ),
        await send(server, 'POST', '/keyknox/v1/reset', { ...from, ...auth('alice') }),
        await send(
          server,
          'POST',
          '/keyknox/v2/push',
          { ...from, ...auth('alice') },
          {
            root: 'e3kit',
            path: 'backup',
            key: 'k',
            identities: [],
            meta: b64('m'),
            value: b64('v'),
          },
        ),
        await send(
          server,
          'POST',
          '/card/v5',
          { ...from, ...auth('mallory') },
          makeCard('mallory').raw,
        ),
      ];
      for (const answer of [...reads, ...writes])
        assert.deepEqual([answer.status, answer.code], [401, 20308], `${what}: ${answer.text}`);
    }
    const pulled = await send(server, 'GET', '/keyknox/v1', { ...local, ...auth('alice') });
    assert.equal(JSON.parse(pulled.text).value, b64('alice backup'));
    const exported = await send(server, 'GET', '/_cards/export', local);
    assert.equal(exported.text.split('\n').filter((l) => l !== '').length, 1, exported.text);
  });

  test('pages served from this machine and clients without an Origin work as before', async (t) => {
    const server = await startInProcess({
      args: ['--compat', 'virgil', '--accept-any-token', '--quiet', '--no-log'],
    });
    t.after(() => server.dispose());
    const port = new URL(server.url).port;
    const auth = { authorization: `Virgil ${forged('dev')}` };
    const froms: Record<string, string>[] = [
      { host: `127.0.0.1:${port}` },
      { host: `localhost:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://localhost:5173' },
      { host: `127.0.0.1:${port}`, origin: 'https://127.0.0.1:8443' },
      { host: `127.0.0.1:${port}`, origin: 'http://[::1]:3000' },
      { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
    ];
    for (const from of froms) {
      const answer = await send(server, 'GET', '/keyknox/v1', { ...from, ...auth });
      assert.equal(answer.status, 200, `${JSON.stringify(from)}: ${answer.text}`);
    }
    const created = await send(
      server,
      'POST',
      '/card/v5',
      { host: `localhost:${port}`, origin: 'http://localhost:5173', ...auth },
      makeCard('dev').raw,
    );
    assert.equal(created.status, 201, created.text);
  });

  test('a server that verifies its tokens answers other origins as before', async (t) => {
    const server = await startInProcess({ args: ['--compat', 'virgil', '--quiet', '--no-log'] });
    t.after(() => server.dispose());
    const port = new URL(server.url).port;
    const token = await server.token('alice', { format: 'stock', appId: 'app' });
    const answer = await send(server, 'GET', '/keyknox/v1', {
      host: `cards.example:${port}`,
      origin: 'https://app.example',
      authorization: `Virgil ${token}`,
    });
    assert.equal(answer.status, 200, answer.text);
  });
});
