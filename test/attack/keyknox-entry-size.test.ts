/**
 * One Keyknox v2 entry keeps at most LIMITS.keyknoxEntryMax bytes over its readers' copies
 * (each reader keeps the copy pushed when it was named), against a real `cards serve`. Without
 * the bound one client grew one entry by a copy per push, each push naming a new reader: 60
 * pushes of 700 KiB made a 57 MB entry (written whole at each push: 3.3 s a push on the JSON
 * file), whose export line was over the 32 MiB an import reads, so the server's own export
 * could not be imported. The refused push leaves the entry as it was.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { WIRE_ERRORS } from '../../src/core/wire-errors.js';
import { MEMORY_TARGET } from '../../src/server/open-engine.js';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';

after(removeTempDirs);

const COPY = 700 * 1024;

test('a push that would keep more than the bound over all copies is 413 50004; nothing changes', async (t) => {
  const server = await startInProcess({
    args: ['--compat', 'virgil', '--quiet', '--no-log'],
    store: MEMORY_TARGET,
  });
  t.after(() => server.dispose());
  const token = await server.token('alice', { format: 'stock', appId: E3KIT_APP });
  const push = (i: number, hash: string | null) =>
    fetch(`${server.url}/keyknox/v2/push`, {
      method: 'POST',
      headers: {
        authorization: `Virgil ${token}`,
        'content-type': 'application/json',
        ...(hash !== null && { 'virgil-keyknox-previous-hash': hash }),
      },
      body: JSON.stringify({
        root: 'group-sessions',
        path: 'session',
        key: '1',
        identities: [`reader${i}`],
        meta: Buffer.from([i]).toString('base64'),
        value: Buffer.alloc(COPY, i).toString('base64'),
      }),
    });
  const fits = Math.floor(LIMITS.keyknoxEntryMax / (COPY + 1));
  let hash: string | null = null;
  for (let i = 0; i < fits; i++) {
    const pushed = await push(i, hash);
    assert.equal(pushed.status, 200, `push ${i}: ${await pushed.text()}`);
    hash = pushed.headers.get('virgil-keyknox-hash');
  }
  const before = await (await fetch(`${server.url}/_cards/export`)).text();
  const refused = await push(fits, hash);
  const body = (await refused.json()) as { code: number; message: string };
  assert.equal(refused.status, 413, JSON.stringify(body));
  assert.equal(body.code, 50004);
  assert.match(body.message, /at most 16777216/);
  assert.equal(await (await fetch(`${server.url}/_cards/export`)).text(), before);
  // What was kept moves: its export line is one an import reads.
  const longest = Math.max(...before.split('\n').map((line) => line.length));
  assert.ok(longest < LIMITS.keyknoxLineMax, `${longest} characters`);
  const reset = await fetch(`${server.url}/_cards/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"confirm":"reset"}',
  });
  assert.equal(reset.status, 200);
  const imported = await fetch(`${server.url}/_cards/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: before,
  });
  assert.equal(imported.status, 200, await imported.text());
  assert.equal(await (await fetch(`${server.url}/_cards/export`)).text(), before);
});

test('an import line whose entry keeps more than the bound is refused as a push is; nothing is stored', async (t) => {
  const server = await startInProcess({
    args: ['--compat', 'virgil', '--quiet', '--no-log'],
    store: MEMORY_TARGET,
  });
  t.after(() => server.dispose());
  const token = await server.token('alice', { format: 'stock', appId: E3KIT_APP });
  const pushed = await fetch(`${server.url}/keyknox/v2/push`, {
    method: 'POST',
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      root: 'group-sessions',
      path: 'session',
      key: '1',
      identities: ['bob'],
      meta: Buffer.from('m').toString('base64'),
      value: Buffer.from('v').toString('base64'),
    }),
  });
  assert.equal(pushed.status, 200, await pushed.text());
  const exported = (await (await fetch(`${server.url}/_cards/export`)).text()).trim();
  const line = JSON.parse(exported) as { keyknox2: Record<string, unknown> };
  // Two copies of half the bound each, one per reader: one byte over what a push may keep.
  const half = Buffer.alloc(LIMITS.keyknoxEntryMax / 2, 7).toString('base64');
  line.keyknox2.copies = [
    { meta: 'bQ==', value: half },
    { meta: 'bQ==', value: half },
  ];
  line.keyknox2.readers = [{ identity: 'bob', copy: 1 }];
  const reset = await fetch(`${server.url}/_cards/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"confirm":"reset"}',
  });
  assert.equal(reset.status, 200);
  const refused = await fetch(`${server.url}/_cards/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: `${JSON.stringify(line)}\n`,
  });
  const body = (await refused.json()) as { code: number; message: string };
  assert.equal(refused.status, 400, JSON.stringify(body));
  assert.equal(body.code, WIRE_ERRORS.IMPORT_INVALID.wire);
  assert.match(body.message, /line 1 .*16777216/);
  assert.equal(await (await fetch(`${server.url}/_cards/export`)).text(), '');
});
