/**
 * The page in a real browser: headless Chromium (browser-kit.ts) against a real `cards serve`
 * seeded with cards and one card whose self-signature was tampered with (in the store file the
 * server starts on: no request, create or import, stores such a card). Clicks from the identities to an identity's
 * timeline to a card, checks the verdicts the browser computed, and saves a screenshot of each
 * view in test-artifacts/.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { encodeBase64 } from '../../src/core/encoding.js';
import { ROUTES } from '../../src/core/routes.js';
import { serializeCard } from '../../src/store/record.js';
import { postCard } from '../helpers/post-card.js';
import { makeTempDir, removeTempDirs, type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { ARTIFACTS, launchBrowser, openPage, skip, waitUntil } from './browser-kit.js';

describe('the page in headless Chromium', { skip }, () => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  let aliceFirst: string;
  let tampered: string;

  before(async () => {
    // Mallory's card: its self-signature has one bit flipped (a store file's cards are served as they are).
    const m = makeCard('mallory@example.com');
    const signature = Buffer.from(m.raw.signatures[0]?.signature as string, 'base64');
    signature[signature.length - 1] = (signature[signature.length - 1] as number) ^ 1;
    tampered = m.id;
    const line = serializeCard({
      id: m.id,
      identity: 'mallory@example.com',
      content_snapshot: m.raw.content_snapshot,
      signatures: [{ signer: 'self', signature: encodeBase64(signature) }],
    });
    const dir = makeTempDir('cards-page-');
    writeFileSync(
      join(dir, 'cards.json'),
      `{"format":"cards-store","version":1,"cards":[\n${line}\n]}\n`,
    );
    server = await startInProcess({ dir, args: ['--quiet'] });
    const post = (identity: string, path: string, body: unknown): Promise<void> =>
      postCard(server, identity, body, path);
    const a1 = makeCard('alice@example.com');
    await post('alice@example.com', '/card/v5', a1.raw);
    aliceFirst = a1.id;
    await post(
      'alice@example.com',
      '/card/v5',
      makeCard('alice@example.com', { previousCardId: a1.id }).raw,
    );
    const a3 = makeCard('alice@example.com');
    await post('alice@example.com', '/card/v5', a3.raw);
    await post(
      'alice@example.com',
      '/card/v5/actions/revoke',
      makeRevocation('alice@example.com', a3.id).raw,
    );
    for (const name of ['bob', 'carol', 'dave'])
      await post(`${name}@example.com`, '/card/v5', makeCard(`${name}@example.com`).raw);
    browser = await launchBrowser();
    page = await openPage(browser, server);
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
    removeTempDirs();
  });

  test('identities with counts and a search box', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#identities .identity-row');
    const rows = await page.locator('#identities .identity-row td:first-child').allTextContents();
    assert.deepEqual(rows, [
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
      'dave@example.com',
      'mallory@example.com',
    ]);
    const alice = await page
      .locator('#identities .identity-row')
      .first()
      .locator('td')
      .allTextContents();
    assert.deepEqual(alice, ['alice@example.com', '4', '1', '1']);
    await page.screenshot({ path: `${ARTIFACTS}page-identities.png`, fullPage: true });
    await page.fill('input[name=prefix]', 'ca');
    await page.click('form button');
    await waitUntil(page, "document.querySelectorAll('#identities .identity-row').length === 1");
    assert.equal(
      await page.locator('#identities .identity-row td').first().textContent(),
      'carol@example.com',
    );
  });

  test('an identity as a timeline, then a card with its verdicts checked in the browser', async () => {
    await page.goto(`${server.url}/`);
    await page.click('text=alice@example.com');
    await page.waitForSelector('.timeline .chain');
    assert.equal(await page.locator('.timeline .chain').count(), 2);
    const states = await page.locator('.chain li .badge').allTextContents();
    assert.deepEqual(states, ['superseded', 'active', 'revoked', 'revocation']);
    await page.screenshot({ path: `${ARTIFACTS}page-identity.png`, fullPage: true });
    await page.click(`a[href$="${aliceFirst}"]`);
    await page.waitForSelector('#verdicts .verdict');
    assert.equal(await page.getAttribute('#card-id span', 'data-status'), 'valid');
    const verdicts = await page.$$eval('#verdicts .verdict', (rows) =>
      rows.map((row) => [row.getAttribute('data-signer'), row.getAttribute('data-status')]),
    );
    assert.deepEqual(verdicts, [
      ['self', 'valid'],
      ['service', 'valid'],
    ]);
    assert.match((await page.textContent('#snapshot')) ?? '', /"identity": "alice@example.com"/);
    await page.screenshot({ path: `${ARTIFACTS}page-card.png`, fullPage: true });
  });

  test('a tampered signature shows as invalid', async () => {
    await page.goto(`${server.url}/#/identity/${encodeURIComponent('mallory@example.com')}`);
    await page.click(`a[href$="${tampered}"]`);
    await page.waitForSelector('#verdicts .verdict');
    const status = await page.getAttribute('#verdicts .verdict[data-signer=self]', 'data-status');
    assert.equal(status, 'invalid');
    assert.equal(await page.getAttribute('#card-id span', 'data-status'), 'valid');
    await page.screenshot({ path: `${ARTIFACTS}page-card-tampered.png`, fullPage: true });
  });

  test('the request journal refreshes live', async () => {
    await page.goto(`${server.url}/#/requests`);
    await page.waitForSelector('#requests .request');
    const before = Number(await page.getAttribute('#requests', 'data-total'));
    await fetch(`${server.url}/health`);
    await waitUntil(
      page,
      `Number(document.getElementById('requests')?.dataset.total) > ${before}`,
      5000,
    );
    assert.match((await page.textContent('#requests')) ?? '', /\/health/);
    await page.screenshot({ path: `${ARTIFACTS}page-requests.png`, fullPage: true });
  });

  test('the API docs: every route, and no word from inside the project', async () => {
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('section.operation');
    const sections = await page.$$eval('section.operation', (all) => all.map((s) => s.id));
    assert.deepEqual(sections.sort(), ROUTES.map((route) => route.name).sort());
    const text = await page.evaluate<string>("document.getElementById('docs').textContent");
    // Nor a file of the repository (docs/….md, src/…): the page is read where those are not.
    for (const word of [
      /\bissue\b/i,
      /fast path/i,
      /\.ts\b/,
      /\bstock\b/i,
      /wire-facts/i,
      /\.md\b/,
      /\bsrc\//,
      /#\d+\b/,
    ])
      assert.doesNotMatch(text, word);
    await page.screenshot({ path: `${ARTIFACTS}page-docs.png` });
  });
});
