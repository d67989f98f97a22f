/**
 * The page's Keyknox view in headless Chromium (browser-kit.ts) against a real `cards serve`
 * over Keyknox v2 entries too large for one page of 50 rows: each names 1,024 readers of 1,000
 * bytes, so LIMITS.adminPageBytes holds four rows a page. The view walks them by next_cursor,
 * page after page, every entry once, and numbers each page's rows by the rows before it; a row
 * shows ten of its readers and how many more it names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LIMITS } from '../../src/core/limits.js';
import { removeTempDirs } from '../helpers/server.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { launchBrowser, openPage, skip, waitUntil } from './browser-kit.js';

const ENTRIES = 10;
/**
 * Rows of 1,024 readers of about 1,000 bytes: about 1.02 MB of JSON each, four a page. Each
 * reader is mostly '€' (three bytes, one character): Chromium takes over ten seconds to lay out
 * a page of 4 MB of unbroken ASCII, and about one for a third as many characters.
 */
const readers = (key: string): { identity: string; copy: number }[] =>
  Array.from({ length: LIMITS.keyknoxReadersMax }, (_, i) => {
    const head = `${key}-${i}-`;
    return { identity: head + '\u20ac'.repeat(Math.floor((1000 - head.length) / 3)), copy: 0 };
  });
const keyOf = (i: number): string => `k${String(i).padStart(2, '0')}`;

describe("the page's Keyknox view over entries past a page's bytes", { skip }, () => {
  let server: InProcessServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startInProcess({ args: ['--compat', 'virgil', '--quiet', '--no-log'] });
    const store = server.running.engine.keyknox;
    for (let i = 0; i < ENTRIES; i++) {
      const key = keyOf(i);
      const stored = await store.v2Put(
        {
          address: { app: 'app', owner: 'alice', root: 'e3kit', path: 'backup', key },
          copies: [{ meta: new Uint8Array([1]), value: new Uint8Array([2]) }],
          readers: readers(key),
          hash: `hash-${key}`,
          revision: 1,
        },
        0,
      );
      assert.ok(stored);
    }
    browser = await launchBrowser();
    page = await openPage(browser, server);
    page.on('dialog', (dialog) => assert.fail(`a dialog opened: ${dialog.message()}`));
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
    removeTempDirs();
  });

  test('every entry once, four a page, each page numbered from the rows before it', async () => {
    await page.goto(`${server.url}/`);
    await page.click('nav a[href="#/keyknox"]');
    await page.waitForSelector('#keyknox .keyknox-row');
    const rows = page.locator('#keyknox .keyknox-row');
    const keys: string[] = [];
    const ranges: string[] = [];
    for (;;) {
      const count = await rows.count();
      for (let i = 0; i < count; i++)
        keys.push((await rows.nth(i).locator('td').nth(5).textContent()) ?? '');
      ranges.push((await page.textContent('#range')) ?? '');
      if ((await page.locator('#next').count()) === 0) break;
      const shown = ranges.at(-1);
      await page.click('#next');
      await waitUntil(
        page,
        `document.getElementById('range')?.textContent !== ${JSON.stringify(shown)}`,
      );
    }
    assert.deepEqual(
      keys,
      Array.from({ length: ENTRIES }, (_, i) => keyOf(i)),
    );
    assert.deepEqual(ranges, ['entries 1–4', 'entries 5–8', 'entries 9–10']);
  });

  test('a row shows its first ten readers and how many more the entry names', async () => {
    // The last test left the page on its last page; a change of hash alone keeps those rows
    // until the first page is drawn.
    await page.goto(`${server.url}/#/keyknox`);
    await page.waitForSelector('#keyknox .keyknox-row');
    await waitUntil(page, `document.getElementById('range')?.textContent === 'entries 1–4'`);
    const cell = page.locator('#keyknox .keyknox-row').first().locator('td.readers');
    assert.equal(await cell.locator('bdi.data').count(), 10);
    assert.match((await cell.textContent()) ?? '', /^k00-0-€+, k00-1-.* … and 1014 more$/);
  });
});
