/**
 * `cards log audit` and `cards monitor` against a log that serves, for a size it signed, an
 * entry bundle that is not a bundle of that many entries (bytes added after the last entry, or
 * the last entry cut short): the log no longer serves the tree it signed, so LOG_INCONSISTENT,
 * exit 8, as for a changed entry. Such a bundle was reported as LOG_TILE_NOT_FOUND, exit 3, as
 * if the log had merely lost a tile. A bundle that is not there at all stays LOG_TILE_NOT_FOUND.
 * The lies are told by a proxy in front of a real `cards serve`.
 */
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { removeTempDirs } from '../helpers/server.js';
import { serverInSandbox } from '../cli/server-sandbox.js';

after(removeTempDirs);

type Lie = (bundle: Buffer) => Buffer | undefined;

/** A proxy to `target` that passes every answer on, entry bundles through `lie.current`. */
async function lyingProxy(target: string, lie: { current: Lie }): Promise<Server> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const upstream = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body: Buffer | undefined = Buffer.concat(chunks);
          if (/\/tile\/entries\//.test(req.url ?? '') && answer.statusCode === 200)
            body = lie.current(body);
          const headers = { ...answer.headers };
          delete headers['content-length'];
          if (body === undefined) res.writeHead(404).end();
          else res.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test('a served entry bundle of the wrong width: log audit and monitor exit 8', async (t) => {
  const { server, box } = await serverInSandbox({ args: ['--quiet', '--log-interval', '50'] });
  t.after(() => server.dispose());
  t.after(() => box.cleanup());
  const vkey = /^log key: (\S+)$/m.exec(server.stdout())?.[1] ?? '';
  for (const identity of ['alice', 'bob', 'carol']) {
    const r = await box.cards(['create', '--identity', identity, '--new-key', '--json']);
    assert.equal(r.status, 0, r.stderr);
  }
  for (
    let i = 0;
    !(await (await fetch(`${server.url}/log/checkpoint`)).text()).includes('\n3\n');
    i++
  ) {
    assert.ok(i < 200, 'the log never signed 3 entries');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lie = { current: ((bundle) => bundle) as Lie };
  const proxy = await lyingProxy(server.url, lie);
  t.after(() => new Promise((resolve) => proxy.close(resolve)));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const audit = () => box.cards(['log', 'audit', '--url', url, '--log-key', vkey, '--no-cards']);

  const honest = await audit();
  assert.equal(honest.status, 0, honest.stdout + honest.stderr);
  const lies: [string, Lie][] = [
    ['an entry added', (b) => Buffer.concat([b, Buffer.from([0, 3, 1, 2, 3])])],
    ['the last entry cut short', (b) => b.subarray(0, b.byteLength - 7)],
  ];
  for (const [what, told] of lies) {
    lie.current = told;
    const audited = await audit();
    assert.equal(audited.status, 8, `audit, ${what}: ${audited.stdout}${audited.stderr}`);
    assert.match(audited.stderr, /LOG_INCONSISTENT \(91004\).*not the tree it signed/, what);
    const watched = await box.cards([
      'monitor',
      '--identity',
      'alice',
      '--url',
      url,
      '--log-key',
      vkey,
    ]);
    assert.equal(watched.status, 8, `monitor, ${what}: ${watched.stdout}${watched.stderr}`);
  }
  lie.current = () => undefined;
  const gone = await audit();
  assert.equal(gone.status, 3, gone.stdout + gone.stderr);
  assert.match(gone.stderr, /LOG_TILE_NOT_FOUND/);
});
