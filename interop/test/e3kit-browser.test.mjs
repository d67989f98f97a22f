// @virgilsecurity/e3kit-browser 2.5.5 (the vendor's kit for browsers, on the same e3kit-base 2.5.0
// as e3kit-node 2.5.1) in headless Chromium, served from another origin than the API's, against
// `cards serve --compat virgil`: a private-key backup with a password (Pythia brainkey +
// Keyknox v1), restore, wrong password, change of password, resets, a backup under a key name
// (Keyknox v2), and a throttled brainkey. The page is http://localhost:<port>, the API
// http://127.0.0.1:<port>: each call is a cross-origin request, and the server must
// answer its preflights (PUT, the Virgil-Keyknox-Previous-Hash request header) and expose
// Virgil-Keyknox-Hash, without which the kit reads no hash and every later write of a backup is
// refused as a conflict (shown here by a proxy that strips the exposure).
//
// The browser reaches the server through a recording proxy (lib/proxy.mjs), which shows what
// crossed the wire: the page's Origin on every request, the preflights and their answers, and
// the hash each write names; the server's request journal (`cards requests`) shows the same
// requests by route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openE3kitPage, skip, startPageOrigin } from '../lib/browser.mjs';
import { cardsAt } from '../lib/cli.mjs';
import { startRecordingProxy } from '../lib/proxy.mjs';
import { startServer } from '../lib/server.mjs';
import { makeApp, uniqueIdentity } from '../lib/stock.mjs';

const app = makeApp();
const closers = [];
let origin;
let e3;
// Three `cards serve` behind recording proxies: Pythia's throttle off (the backup flows), the
// same with the exposure of headers stripped by the proxy, and the default throttle.
let quick;
let hidden;
let limited;

/** `cards serve` (flags `args`) behind a recording proxy (`proxyOptions`). */
async function serverBehindProxy(args = [], proxyOptions = {}) {
  const server = await startServer({ jwtKeys: [app.publicKeyBase64], args });
  closers.push(() => server.stop());
  const proxy = await startRecordingProxy(server.url, proxyOptions);
  closers.push(proxy.close);
  return { server, proxy };
}

/** Answer headers without the exposure of any header to the page. */
const stripExposure = (headers) => {
  delete headers['access-control-expose-headers'];
  return headers;
};

before(async () => {
  if (skip) return;
  origin = await startPageOrigin();
  closers.push(origin.close);
  const browser = await launchBrowser();
  closers.push(() => browser.close());
  [quick, hidden, limited] = await Promise.all([
    serverBehindProxy(['--pythia-throttle', 'off']),
    serverBehindProxy(['--pythia-throttle', 'off'], { answerHeaders: stripExposure }),
    serverBehindProxy(),
  ]);
  e3 = await openE3kitPage(browser, origin, {
    apis: [quick, hidden, limited].map(({ proxy }) => proxy.url),
    token: (identity) => app.token(identity).toString(),
  });
});
after(async () => {
  for (const close of closers.reverse()) await close();
});

const KEYKNOX_V1 = '/keyknox/v1';
/** The request headers a header list names, lower case (a preflight's, an answer's). */
const names = (list = '') => list.split(',').map((name) => name.trim().toLowerCase());

/** A device named `name` of a new identity, registered at `apiUrl`; the identity. */
async function registered(name, apiUrl) {
  const identity = uniqueIdentity(name);
  await e3.open(name, identity, apiUrl);
  await e3.run(name, 'register');
  return identity;
}

/** What `cards requests` holds of a server, newest first. */
async function journal(server, extra = []) {
  const args = ['requests', '--limit', '1000', '--json', ...extra];
  const { requests } = JSON.parse((await cardsAt(server.url, args)).stdout);
  return requests;
}

describe('e3kit-browser from another origin: a backup with a password', { skip }, () => {
  const alice = uniqueIdentity('alice');
  let api;
  let secret;

  before(() => (api = quick));

  /** The hash the server named in its last answer before the write `write` of the proxy. */
  const hashBefore = (write) => {
    const at = api.proxy.requests.indexOf(write);
    const answers = api.proxy.requests.slice(0, at).filter((r) => r.path === write.path);
    return answers.findLast((r) => r.method !== 'OPTIONS')?.answer['virgil-keyknox-hash'];
  };
  /** The Keyknox v1 writes (PUT) since `from`, each with the previous hash it named. */
  const writesSince = (from) =>
    api.proxy.requests
      .slice(from)
      .filter((r) => r.method === 'PUT' && r.path === KEYKNOX_V1)
      .map((r) => ({ request: r, previous: r.headers['virgil-keyknox-previous-hash'] }));

  /** Device b drops its key and finds no backup to restore with `password`. */
  const noBackupOnB = async (password) => {
    await e3.run('b', 'cleanup');
    const none = await e3.call('b', 'restorePrivateKey', password);
    assert.equal(none.error, 'PrivateKeyNoBackupError', none.message);
  };
  /** Device a backs its key up with `password`; device b restores it and decrypts. */
  const backupRestoresOnB = async (password) => {
    await e3.run('a', 'backupPrivateKey', password);
    await e3.run('b', 'restorePrivateKey', password);
    assert.equal(await e3.run('b', 'authDecrypt', secret), 'before the backup');
  };

  test('backup, cleanup, restore: the restored key decrypts what it encrypted before', async () => {
    await e3.open('a', alice, api.proxy.url);
    await e3.run('a', 'register');
    secret = await e3.run('a', 'authEncrypt', 'before the backup');
    await e3.run('a', 'backupPrivateKey', 'pa$$word one');
    await e3.run('a', 'cleanup');
    assert.equal(await e3.run('a', 'hasLocalPrivateKey'), false);
    await e3.run('a', 'restorePrivateKey', 'pa$$word one');
    assert.equal(await e3.run('a', 'hasLocalPrivateKey'), true);
    assert.equal(await e3.run('a', 'authDecrypt', secret), 'before the backup');
  });

  test('a wrong password restores nothing on a new device', async () => {
    await e3.open('b', alice, api.proxy.url);
    const wrong = await e3.call('b', 'restorePrivateKey', 'wrong password');
    assert.equal(wrong.error, 'WrongKeyknoxPasswordError', wrong.message);
    assert.equal(await e3.run('b', 'hasLocalPrivateKey'), false);
  });

  test('changePassword writes over the backup naming the hash the browser read', async () => {
    const from = api.proxy.requests.length;
    await e3.run('a', 'changePassword', 'pa$$word one', 'pa$$word two');
    const [write, ...more] = writesSince(from);
    assert.equal(more.length, 0);
    assert.match(write.previous ?? '', /^[A-Za-z0-9+/]+=*$/, 'the write names a hash');
    assert.equal(write.previous, hashBefore(write.request));
    assert.equal(write.request.status, 200);

    const old = await e3.call('b', 'restorePrivateKey', 'pa$$word one');
    assert.equal(old.error, 'WrongKeyknoxPasswordError', old.message);
    await e3.run('b', 'restorePrivateKey', 'pa$$word two');
    assert.equal(await e3.run('b', 'authDecrypt', secret), 'before the backup');
  });

  test('resetPrivateKeyBackup(password) empties the backup; a new backup writes over it', async () => {
    const from = api.proxy.requests.length;
    await e3.run('a', 'resetPrivateKeyBackup', 'pa$$word two');
    await noBackupOnB('pa$$word two');
    // the emptied backup is still encrypted for that password's brainkey: e3kit writes the new
    // backup into it with the same password
    await backupRestoresOnB('pa$$word two');
    // both writes (the emptied entry list, then the new backup) named the hash read before them
    const writes = writesSince(from);
    assert.equal(writes.length, 2);
    for (const { request, previous } of writes) {
      assert.ok(previous, 'the write names a hash');
      assert.equal(previous, hashBefore(request));
      assert.equal(request.status, 200);
    }
  });

  test('resetPrivateKeyBackup(): nothing left to restore; a backup after it restores', async () => {
    await e3.run('a', 'resetPrivateKeyBackup');
    await noBackupOnB('pa$$word two');
    await backupRestoresOnB('pa$$word three');
  });

  test('a backup under a key name (Keyknox v2): backup, change of password, restore, reset', async () => {
    await e3.run('a', 'backupPrivateKey', 'laptop one', 'laptop');
    await e3.run('a', 'changePassword', 'laptop one', 'laptop two', 'laptop');
    const push = api.proxy.requests.findLast((r) => r.path === '/keyknox/v2/push');
    assert.ok(push.headers['virgil-keyknox-previous-hash'], 'the second push names a hash');
    assert.equal(push.status, 200);
    await e3.run('b', 'cleanup');
    await e3.run('b', 'restorePrivateKey', 'laptop two', 'laptop');
    assert.equal(await e3.run('b', 'authDecrypt', secret), 'before the backup');
    await e3.run('a', 'resetPrivateKeyBackupWithKeyName', 'laptop');
    await e3.run('b', 'cleanup');
    // the server answers an absent entry as empty (200); e3kit 2.5 then fails reading the key
    // out of it (a TypeError, not PrivateKeyNoBackupError), and keeps no key
    const none = await e3.call('b', 'restorePrivateKey', 'laptop two', 'laptop');
    assert.ok(none.error, 'nothing to restore');
    assert.equal(await e3.run('b', 'hasLocalPrivateKey'), false);
    const pull = (await journal(api.server)).find((r) => r.route === 'keyknoxV2Pull');
    assert.equal(pull.status, 200);
  });

  test('on the wire: preflights answered, the Origin of the page, the hash exposed', async () => {
    const seen = api.proxy.requests;
    assert.ok(seen.length > 0);
    for (const r of seen) {
      const what = `${r.method} ${r.path} → ${r.status}`;
      assert.equal(r.headers.origin, origin.url, what);
      assert.equal(r.answer['access-control-allow-origin'], '*', what);
      if (r.method === 'OPTIONS') {
        assert.equal(r.status, 204, what);
        assert.ok(names(r.answer['access-control-allow-methods']).includes('put'), what);
        const allowed = names(r.answer['access-control-allow-headers']);
        for (const name of names(r.headers['access-control-request-headers'])) {
          assert.ok(allowed.includes(name), `${what}: ${name} not allowed`);
        }
        assert.ok(allowed.includes('virgil-keyknox-previous-hash'), what);
      } else {
        assert.ok(r.status >= 200 && r.status < 300, what);
        const exposed = names(r.answer['access-control-expose-headers']);
        assert.ok(exposed.includes('virgil-keyknox-hash'), what);
      }
    }
    // a preflight before the first request of each path the kit used, for its method
    const paths = new Set(seen.filter((r) => r.method !== 'OPTIONS').map((r) => r.path));
    for (const path of [
      KEYKNOX_V1,
      '/keyknox/v1/reset',
      '/keyknox/v2/push',
      '/pythia/v1/brainkey',
    ]) {
      assert.ok(paths.has(path), path);
    }
    for (const path of paths) {
      const first = seen.findIndex((r) => r.path === path);
      assert.equal(seen[first].method, 'OPTIONS', `a preflight first on ${path}`);
    }

    // the server's request journal holds exactly what crossed the proxy
    const held = await journal(api.server);
    const line = (r) => `${r.method} ${r.path} ${r.status}`;
    assert.deepEqual(held.map(line).sort(), seen.map(line).sort());
    const routes = new Set(held.filter((r) => r.identity === alice).map((r) => r.route));
    for (const route of [
      'pythiaBrainkey',
      'keyknoxV1Pull',
      'keyknoxV1Push',
      'keyknoxV1Reset',
      'keyknoxV2Pull',
      'keyknoxV2Push',
      'keyknoxV2Reset',
    ]) {
      assert.ok(routes.has(route), route);
    }
  });
});

describe('e3kit-browser when the hash header is not exposed', { skip }, () => {
  test('a proxy strips Access-Control-Expose-Headers: the kit reads no hash, changePassword is refused', async () => {
    const { server, proxy } = hidden;
    const carol = await registered('carol', proxy.url);
    // the first backup writes onto an empty blob, which needs no previous hash
    await e3.run('carol', 'backupPrivateKey', 'pa$$word one');
    const refused = await e3.call('carol', 'changePassword', 'pa$$word one', 'pa$$word two');
    assert.equal(refused.error, 'KeyknoxClientError', refused.message);
    assert.equal(refused.code, 50010);

    // the server did send the hash and its exposure; the browser hid the header from the kit
    const pulls = proxy.requests.filter((r) => r.method === 'GET' && r.path === KEYKNOX_V1);
    assert.ok(pulls.length > 0);
    for (const r of pulls) {
      assert.ok(r.answer['virgil-keyknox-hash']);
      assert.ok(names(r.answer['access-control-expose-headers']).includes('virgil-keyknox-hash'));
    }
    const pushes = (await journal(server, ['--identity', carol]))
      .filter((r) => r.route === 'keyknoxV1Push')
      .map((r) => [r.status, r.code]);
    assert.deepEqual(pushes, [
      [409, '50010'],
      [200, null],
    ]);
  });
});

describe('e3kit-browser against the default brainkey throttle', { skip }, () => {
  test('three new devices restore at once: the throttled one waits and retries', async () => {
    const { server, proxy } = limited;
    const dave = await registered('dave', proxy.url);
    const secret = await e3.run('dave', 'authEncrypt', 'for every device');
    await e3.run('dave', 'backupPrivateKey', 'pa$$word');
    const devices = ['dave-b', 'dave-c', 'dave-d'];
    for (const device of devices) await e3.open(device, dave, proxy.url);

    // a burst of two brainkeys per identity: the third at once is refused with 60007, and
    // e3kit asks again 2 s later, when the bucket has refilled
    await Promise.all(devices.map((device) => e3.run(device, 'restorePrivateKey', 'pa$$word')));
    for (const device of devices) {
      assert.equal(await e3.run(device, 'authDecrypt', secret), 'for every device');
    }
    const brainkeys = (await journal(server, ['--identity', dave]))
      .filter((r) => r.route === 'pythiaBrainkey')
      .map((r) => [r.status, r.code]);
    const throttled = brainkeys.filter(([status]) => status === 429);
    assert.ok(throttled.length > 0, `no brainkey was throttled: ${JSON.stringify(brainkeys)}`);
    assert.deepEqual(
      throttled,
      throttled.map(() => [429, '60007']),
    );
    assert.equal(brainkeys.length - throttled.length, 4, JSON.stringify(brainkeys));
    // the refusal crossed the origins readable: the kit saw its code and retried
    for (const r of proxy.requests.filter((r) => r.status === 429)) {
      assert.equal(r.answer['access-control-allow-origin'], '*');
      assert.equal(r.headers.origin, origin.url);
    }
    assert.equal(proxy.requests.filter((r) => r.status === 429).length, throttled.length);
  });
});
