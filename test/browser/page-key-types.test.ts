/**
 * The page's verdicts on cards of every key type the stock clients make
 * (fixtures/stock-client-key-types.json), in headless Chromium: the page checks Ed25519
 * signatures itself (verdict.js); a self signature made with another type of key (P-256, RSA,
 * the compound keys), which the service checked on create, is "unchecked", never "invalid". And
 * a link no URL could carry (`%ZZ`) names no identity, rather than a script's URIError.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RawCard } from '../../src/core/card.js';
import { readFixture } from '../helpers/fixtures.js';
import { startInProcess, type InProcessServer } from '../helpers/in-process-server.js';
import { postCard } from '../helpers/post-card.js';
import { launchBrowser, openPage, skip } from './browser-kit.js';

interface StockCard {
  readonly key_type: string;
  readonly identity: string;
  readonly card: RawCard;
  readonly card_id: string;
}

const { cards } = readFixture<{ cards: StockCard[] }>('stock-client-key-types.json');

describe('the page on cards of every stock key type', { skip }, () => {
  let server: InProcessServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startInProcess({ args: ['--quiet'] });
    for (const { identity, card } of cards) await postCard(server, identity, card);
    browser = await launchBrowser();
    page = await openPage(browser, server);
  });
  after(async () => {
    await browser?.close();
    await server?.dispose();
  });

  test('a self signature of a key the page does not check is unchecked, never invalid', async () => {
    for (const { key_type, identity, card_id } of cards) {
      await page.goto(`${server.url}/#/card/${encodeURIComponent(identity)}/${card_id}`);
      await page.waitForSelector('#verdicts .verdict, #view .error');
      const verdicts = await page.$$eval('#verdicts .verdict', (rows) =>
        rows.map((row) => [row.getAttribute('data-signer'), row.getAttribute('data-status')]),
      );
      assert.deepEqual(
        verdicts,
        [
          ['self', key_type === 'ED25519' ? 'valid' : 'unchecked'],
          ['service', 'valid'],
        ],
        key_type,
      );
    }
  });

  test('a link no URL could carry names no identity', async () => {
    for (const hash of ['#/identity/%ZZ', '#/identity/%C0%AF', `#/card/%ZZ/${cards[0]?.card_id}`]) {
      await page.goto(`${server.url}/${hash}`);
      await page.waitForSelector('#view .error');
      assert.equal(await page.textContent('#view .error'), 'This link names no identity.', hash);
    }
    await page.goto(`${server.url}/#/card/${cards[0]?.identity}/%ZZ`);
    await page.waitForSelector('#view .error');
    assert.doesNotMatch((await page.textContent('#view .error')) ?? '', /URI/);
  });
});
