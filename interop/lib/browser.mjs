// A browser application of another origin for the interop tests: Debian's headless Chromium
// (never a browser a tool downloads) driven by playwright-core, with the flags of the project's
// browser tests, and a loopback static server that serves one page and the files of
// e3kit-browser's UMD bundle (its script and the WebAssembly beside it, read from its package).
// The page's origin is `http://localhost:<port>`, the API's `http://127.0.0.1:<port>`: two
// origins, so every call e3kit makes is a cross-origin request under the Fetch standard's CORS
// protocol, preflights included.
//
// Without /usr/bin/chromium the browser suites are skipped with a line saying so, unless
// CARDS_REQUIRE_BROWSER=1 (.ci/run sets it), where a missing browser fails.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';

const helper = new URL('../../dist/test/helpers/chromium.js', import.meta.url);
const { CHROMIUM, CHROMIUM_ARGS } = await import(helper.href);

const available = existsSync(CHROMIUM);
const required = process.env.CARDS_REQUIRE_BROWSER === '1';
const missing = available
  ? false
  : `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium)`;
if (missing && !required) console.log(`# browser interop skipped: ${missing}`);

/** The `skip` option of a browser suite. */
export const skip = required ? false : missing;

/** Chromium, or a failure saying why there is none. */
export async function launchBrowser() {
  assert.ok(available, `CARDS_REQUIRE_BROWSER=1 but ${missing}`);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
}

// e3kit-browser's UMD bundle loads its two WebAssembly modules from the directory its script
// came from.
const E3KIT_DIST = join(
  dirname(createRequire(import.meta.url).resolve('@virgilsecurity/e3kit-browser/package.json')),
  'dist',
);
const E3KIT_FILES = {
  'browser.umd.js': 'text/javascript; charset=utf-8',
  'libfoundation.browser.wasm': 'application/wasm',
  'libpythia.browser.wasm': 'application/wasm',
};
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>e3kit-browser against cards serve</title>
<script src="/e3kit/browser.umd.js"></script></head><body></body></html>
`;

/**
 * The page's origin: `/` is a page that loads e3kit-browser (global `E3kit`), `/e3kit/<file>`
 * its bundle; anything else is a 404. `requests` lists every path asked for.
 */
export async function startPageOrigin() {
  const files = new Map([['/', { body: PAGE, type: 'text/html; charset=utf-8' }]]);
  for (const [name, type] of Object.entries(E3KIT_FILES)) {
    files.set(`/e3kit/${name}`, { body: readFileSync(join(E3KIT_DIST, name)), type });
  }
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(req.url);
    const file = req.method === 'GET' ? files.get(req.url) : undefined;
    if (!file) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://localhost:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/**
 * A page of `origin` (startPageOrigin) with e3kit-browser loaded, which fails the test on an
 * uncaught error in the page and on a request to anywhere but its origin and `apis`. Tokens
 * come from `token(identity)` on the Node side. `open(device, identity, apiUrl)` starts a
 * device of `identity` (its own key storage in the page's IndexedDB) talking to `apiUrl`;
 * `call(device, method, ...args)` runs an EThree method in the page and resolves to `{ value }`
 * or to `{ error, message, code }` (the error's name, message and code); `run` resolves to the
 * value and fails on an error.
 */
export async function openE3kitPage(browser, origin, { apis, token }) {
  const page = await browser.newPage();
  const allowed = [origin.url, ...apis];
  page.on('request', (request) =>
    assert.ok(
      allowed.some((url) => request.url().startsWith(`${url}/`)),
      `request to ${request.url()}`,
    ),
  );
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  await page.exposeFunction('cardsToken', token);
  await page.goto(`${origin.url}/`);
  await page.evaluate(() => {
    const devices = new Map();
    globalThis.e3 = {
      async open(device, identity, apiUrl) {
        const options = { apiUrl, storageName: `${device}-keys` };
        options.groupStorageName = `${device}-groups`;
        const getToken = () => globalThis.cardsToken(identity);
        devices.set(device, await globalThis.E3kit.EThree.initialize(getToken, options));
      },
      async call(device, method, args) {
        try {
          return { value: await devices.get(device)[method](...args) };
        } catch (err) {
          const message = String(err?.message ?? err);
          return { error: err?.name ?? 'thrown', message, code: err?.code };
        }
      },
    };
  });
  const call = (device, method, ...args) =>
    page.evaluate(([d, m, a]) => globalThis.e3.call(d, m, a), [device, method, args]);
  return {
    page,
    open: (device, identity, apiUrl) =>
      page.evaluate(([d, i, u]) => globalThis.e3.open(d, i, u), [device, identity, apiUrl]),
    call,
    async run(device, method, ...args) {
      const result = await call(device, method, ...args);
      assert.equal(result.error, undefined, `${method}: ${result.error}: ${result.message}`);
      return result.value;
    },
  };
}
