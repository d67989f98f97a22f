/**
 * The page's Keyknox view in headless Chromium (browser-kit.ts) against a real `cards serve
 * --compat virgil`: a v1 backup and v2 entries pushed through e3kit's own routes with stock
 * tokens, then seen on the page with their owner, place, readers, size and dates, a page at a
 * time; an owner, key and reader that look like HTML are shown as the text they are (no
 * element made of them, no script run); Pythia's counts from /_cards/info; an empty listing
 * says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { e3kitCall } from '../helpers/e3kit-call.js';
import { removeTempDirs, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { blind } from '../http/e3kit-kit.js';
import { ARTIFACTS, launchBrowser, openPage, skip, waitUntil } from './browser-kit.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const OWNER = '<b id="owned">bold</b>';
const KEY = '<img src=x onerror="document.title=\'owned\'">';
const READER = '<script>document.title="owned"</script>';
/** Entries of another owner beyond the first page (50 rows). */
const MORE = 52;

describe("the page's Keyknox view in headless Chromium", { skip }, () => {
  let server: Served;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startInProcess({ args: ['--compat', 'virgil', '--quiet', '--no-log'] });
    const push = async (method: string, path: string, identity: string, body: unknown) => {
      const answer = await e3kitCall(server, method, path, identity, { body });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    };
    await push('PUT', '/keyknox/v1', 'alice@example.com', {
      meta: b64('meta'),
      value: b64('encrypted private key'),
    });
    await push('POST', '/keyknox/v2/push', OWNER, {
      root: 'e3kit',
      path: 'backup',
      key: KEY,
      identities: [READER, 'bob@example.com'],
      meta: b64('m'),
      value: b64('ticket'),
    });
    for (let i = 0; i < MORE; i++)
      await push('POST', '/keyknox/v2/push', 'zed@example.com', {
        root: 'group-sessions',
        path: 'chat',
        key: `k${String(i).padStart(2, '0')}`,
        identities: [],
        meta: b64('m'),
        value: b64('v'),
      });
    const { blinded } = await blind('correct horse');
    const brainkey = await e3kitCall(server, 'POST', '/pythia/v1/brainkey', 'alice@example.com', {
      body: { blinded_password: blinded, brainkey_id: 'backup' },
    });
    assert.equal(brainkey.status, 200, JSON.stringify(brainkey.body));
    browser = await launchBrowser();
    page = await openPage(browser, server);
    page.on('dialog', (dialog) => assert.fail(`a dialog opened: ${dialog.message()}`));
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
    removeTempDirs();
  });

  test('entries pushed through the real routes, HTML-looking text as text, paged, Pythia counted', async () => {
    await page.goto(`${server.url}/`);
    await page.click('nav a[href="#/keyknox"]');
    await page.waitForSelector('#keyknox .keyknox-row');
    const rows = page.locator('#keyknox .keyknox-row');
    assert.equal(await rows.count(), 50);
    const cells = async (i: number) =>
      (await rows.nth(i).locator('td').allTextContents()) as string[];
    const blob = await cells(0);
    assert.deepEqual(
      [...blob.slice(0, 8), blob[9]],
      [
        'v1',
        'e3kit-test-app',
        'alice@example.com',
        '',
        '',
        '',
        '',
        String('meta'.length + 'encrypted private key'.length),
        '1.0',
      ],
    );
    assert.match(blob[8] ?? '', /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ){2}$/, 'created, updated');
    const created = await rows.first().locator('td.dates .time').first().getAttribute('title');
    assert.match(created ?? '', /^created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // '<' sorts before letters: the HTML-looking owner's entry comes first of the v2 entries.
    const entry = await cells(1);
    assert.deepEqual(
      [...entry.slice(0, 8), entry[9]],
      [
        'v2',
        'e3kit-test-app',
        OWNER,
        'e3kit',
        'backup',
        KEY,
        `${READER}, bob@example.com`,
        String(1 + 'ticket'.length),
        '',
      ],
    );
    assert.equal(await page.locator('#keyknox b, #keyknox img, #keyknox script').count(), 0);
    assert.equal(await page.locator('#owned').count(), 0);
    assert.notEqual(await page.title(), 'owned', 'no script of the data ran');
    assert.equal(await page.textContent('#range'), 'entries 1–50');
    assert.match(
      (await page.textContent('#pythia')) ?? '',
      /Pythia: 1 brainkeys, 0 password transforms, 0 throttled/,
    );
    await page.screenshot({ path: `${ARTIFACTS}page-keyknox.png`, fullPage: true });

    await page.click('#next');
    await waitUntil(page, "document.getElementById('range')?.textContent === 'entries 51–54'");
    const last = await rows.nth(3).locator('td').allTextContents();
    assert.deepEqual(last.slice(2, 6), [
      'zed@example.com',
      'group-sessions',
      'chat',
      `k${MORE - 1}`,
    ]);
    assert.equal(await page.locator('#next').count(), 0, 'the last page');
    await page.click('#previous');
    await waitUntil(page, "document.getElementById('range')?.textContent === 'entries 1–50'");
  });

  test('an empty listing says so, a Keyknox one and a search of identities alike', async () => {
    await page.goto(`${server.url}/#/?prefix=nobody`);
    await page.waitForSelector('#identities');
    await waitUntil(
      page,
      "document.getElementById('view').textContent.includes('No identity matches.')",
    );
    const reset = await fetch(`${server.url}/_cards/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"confirm":"reset"}',
    });
    assert.equal(reset.status, 200);
    await page.goto(`${server.url}/#/keyknox`);
    await page.waitForSelector('#keyknox');
    await waitUntil(
      page,
      "document.getElementById('view').textContent.includes('No Keyknox entry is stored.')",
    );
    assert.equal(await page.locator('#keyknox .keyknox-row').count(), 0);
  });
});
