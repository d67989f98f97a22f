/**
 * e3kit's request bodies (Keyknox v1 and v2, Pythia) are read one way, as content snapshots
 * are (core/strict-json.ts): a name twice in one object, however escaped, is 400 BODY_PARSE
 * (30001), where JSON.parse let the last one win and a proxy or log that read the first saw
 * another entry than the one stored; so is a body nested more than 64 levels. The stock
 * clients build their bodies with JSON.stringify or a JSON encoder (shared spec
 * e3kit-backend.md), which never repeat a name. Against a real `cards serve --compat virgil`
 * in this process on port 0; nothing refused is stored, and a body a stock client sends is
 * stored as before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { E3KIT_APP } from '../helpers/e3kit-call.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { removeTempDirs } from '../helpers/server.js';

let server: InProcessServer;
before(async () => {
  server = await startInProcess({ args: ['--compat', 'virgil', '--quiet', '--no-log'] });
});
after(async () => {
  await server.dispose();
  removeTempDirs();
});

async function call(
  method: string,
  path: string,
  text: string,
): Promise<{
  status: number;
  body: { code?: number; message?: string; meta?: string; value?: string };
}> {
  const token = await server.token('alice', { format: 'stock', appId: E3KIT_APP });
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Virgil ${token}`, 'content-type': 'application/json' },
    ...(method !== 'GET' && { body: text }),
  });
  return { status: response.status, body: (await response.json()) as { code?: number } };
}

const address = '"root":"e3kit","path":"backup","key":"laptop"';
const m = Buffer.from('m').toString('base64');
const v = Buffer.from('v').toString('base64');
const x = Buffer.from('x').toString('base64');

test('a name twice in a Keyknox or Pythia body is 400 BODY_PARSE; nothing is stored', async () => {
  const refused: [string, string, string][] = [
    ['PUT', '/keyknox/v1', `{"meta":"${m}","value":"${v}","value":"${x}"}`],
    ['PUT', '/keyknox/v1', `{"meta":"${m}","value":"${v}","val\\u0075e":"${x}"}`],
    [
      'POST',
      '/keyknox/v2/push',
      `{${address},"identities":["alice"],"meta":"${m}","value":"${v}","value":"${x}"}`,
    ],
    [
      'POST',
      '/keyknox/v2/push',
      `{${address},"identities":["alice"],"identities":["bob"],"meta":"${m}","value":"${v}"}`,
    ],
    ['POST', '/keyknox/v2/pull', `{${address},"identity":"alice","identity":"bob"}`],
    ['POST', '/keyknox/v2/keys', `{"root":"e3kit","root":"other"}`],
    ['POST', '/keyknox/v2/reset', `{"root":"e3kit","path":"backup","path":"other"}`],
    ['POST', '/keyknox/v2/keys', `{"root":"e3kit","x":${'['.repeat(65)}${']'.repeat(65)}}`],
    ['POST', '/pythia/v1/brainkey', `{"blinded_password":"AA==","blinded_password":"AQ=="}`],
  ];
  for (const [method, path, text] of refused) {
    const r = await call(method, path, text);
    assert.deepEqual([r.status, r.body.code], [400, 30001], `${method} ${path} ${text}`);
  }
  const twice = await call('POST', '/keyknox/v2/keys', `{"root":"e3kit","root":"other"}`);
  assert.match(twice.body.message ?? '', /the name "root" twice/);
  const deep = `{"root":"e3kit","x":${'['.repeat(65)}${']'.repeat(65)}}`;
  const tooDeep = await call('POST', '/keyknox/v2/keys', deep);
  assert.match(tooDeep.body.message ?? '', /nested deeper than 64/, 'the message names the limit');
  const v1 = await call('GET', '/keyknox/v1', '');
  assert.equal(v1.body.value, '', 'no v1 blob stored');
  const v2 = await call('POST', '/keyknox/v2/pull', `{${address}}`);
  assert.equal(v2.body.value, '', 'no v2 entry stored');
});

test('a body as a stock client sends it is stored and read back', async () => {
  const body = JSON.stringify({
    root: 'e3kit',
    path: 'backup',
    key: 'phone',
    identities: ['alice'],
    meta: m,
    value: v,
  });
  const pushed = await call('POST', '/keyknox/v2/push', body);
  assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
  const pulled = await call(
    'POST',
    '/keyknox/v2/pull',
    '{"root":"e3kit","path":"backup","key":"phone"}',
  );
  assert.deepEqual([pulled.status, pulled.body.value], [200, v]);
});
