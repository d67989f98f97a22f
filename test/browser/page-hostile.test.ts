/**
 * The page against hostile card data, in headless Chromium (browser-kit.ts): identities a URL
 * path cannot carry as they are (`.`, `..`, a slash, a percent sign), bidi, control and
 * zero-width characters, a lone surrogate (refused on create and import, so held only by a
 * store file written without the text rule of docs/http.md "Text"), a created_at no Date can
 * show, extra signers named after Object.prototype's properties or holding a lone surrogate
 * (signer names are not under the text rule), extra snapshots, long identities and many of
 * them. Each view writes what a card holds out as the CLI does (src/core/terminal-text.ts),
 * isolated from the text around it; dates stay on one line; the page's own requests stay out of
 * the journal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { utf8 } from '../../src/core/encoding.js';
import { generatePrivateKey, parsePrivateKey } from '../../src/crypto/keys.js';
import { signEntry } from '../../src/crypto/sign-card.js';
import { serializeCard } from '../../src/store/record.js';
import { postCard } from '../helpers/post-card.js';
import { type Served } from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { cardFromFields, fieldsFor, makeCard } from '../http/card-kit.js';
import { ARTIFACTS, importLines, launchBrowser, openPage, skip, waitUntil } from './browser-kit.js';

const LATE = 'late@example.com';
const PROTO = 'proto@example.com';
const LONG = `${'a-very-long-identity-'.repeat(14)}@example.com`;
/** Each hostile identity, the text the page must show for it, and a prefix that finds it. */
const HOSTILE: readonly (readonly [identity: string, shown: string, prefix: string])[] = [
  ['\u202eecila', '\\u202eecila', '\u202e'],
  ['bell\u0007\u009b31m@example.com', 'bell\\x07\\x9b31m@example.com', 'bell'],
  ['zero\u200bwidth@example.com', 'zero\\u200bwidth@example.com', 'zero'],
  ['.', '.', '.'],
  ['..', '..', '..'],
  ['a/b', 'a/b', 'a/'],
  ['100%', '100%', '100'],
  ['%2E%2E', '%2E%2E', '%2E'],
  ['x?y#z', 'x?y#z', 'x?'],
];
/** In the store file the server starts on: a lone surrogate, which no request may create. */
const LONE: readonly [identity: string, shown: string, prefix: string] = [
  'lone\ud800surrogate@example.com',
  'lone\\ud800surrogate@example.com',
  'lone',
];
const PROTO_SIGNERS = ['__proto__', 'constructor', 'toString', 'lone\ud800'];
const MAX_SAFE = 9007199254740991;
/** Identities seeded besides the others, to page through. */
const MANY = 130;
/** An ISO 8601 date as the page writes it, or a number out of range. */
const DATE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|\d+ \(out of range\)/;

/** The page's text of the view (what a person reads, no markup). */
const viewText = (page: Page): Promise<string> =>
  page.evaluate<string>("document.getElementById('view').textContent");

/** The identity rows' first cells: their text, and whether all of it is in one <bdi>. */
const identityCells = (page: Page): Promise<[string, boolean][]> =>
  page.$$eval('#identities .identity-row td:first-child', (cells) =>
    cells.map((cell) => [
      cell.textContent ?? '',
      cell.querySelector('bdi')?.textContent === cell.textContent,
    ]),
  );

/** Waits for `selector` in the view; a view drawn as an error fails with the error's text. */
async function drawn(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(`${selector}, #view .error`);
  const error = await page.$('#view .error');
  assert.equal(error && (await error.textContent()), null, 'the view is an error');
}

/**
 * The identities' list: loaded when another page is open, else by its hash (no reload). The
 * view drawn before is marked first and the list waited for without the mark: its search box
 * is still on screen until the list is drawn, and a search typed into it would be wiped.
 */
async function listPage(page: Page, url: string): Promise<void> {
  if (!page.url().startsWith(url)) await page.goto(`${url}/`);
  else
    await page.evaluate(`{
      if (location.hash !== '#/') {
        for (const node of document.querySelectorAll('#view *')) node.setAttribute('data-old', '');
        location.hash = '#/';
      }
    }`);
  await drawn(page, 'input[name=prefix]:not([data-old])');
}

/** Opens the identities whose names start with `prefix`, then the one shown as `shown`. */
async function openIdentity(page: Page, url: string, prefix: string, shown: string) {
  await listPage(page, url);
  await page.fill('input[name=prefix]', prefix);
  await page.click('form button');
  await page.getByRole('link', { name: shown, exact: true }).click();
  await drawn(page, '.timeline .chain');
}

describe('the page against hostile card data', { skip }, () => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  let protoCard: string;
  let lateCard: string;
  let identities: string[];
  let dir: string | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cards-page-hostile-'));
    const lone = cardFromFields(fieldsFor(LONE[0], generatePrivateKey()));
    const line = serializeCard({
      id: lone.id,
      identity: LONE[0],
      content_snapshot: lone.raw.content_snapshot,
      signatures: lone.raw.signatures ?? [],
    });
    writeFileSync(
      join(dir, 'cards.json'),
      `{"format":"cards-store","version":1,"cards":[\n${line}\n]}\n`,
    );
    server = await startInProcess({ dir, args: ['--quiet'] });
    for (const [identity] of HOSTILE) await postCard(server, identity, makeCard(identity).raw);
    await postCard(server, LONG, makeCard(LONG).raw);
    const key = generatePrivateKey();
    const late = cardFromFields(fieldsFor(LATE, key, { created_at: MAX_SAFE }), key);
    await postCard(server, LATE, late.raw);
    lateCard = late.id;
    const proto = makeCard(PROTO, {
      others: PROTO_SIGNERS.map((signer, i) => ({
        signer,
        ...(i === 0 && { snapshot: utf8('{"note":"extra \u202e data"}') }),
      })),
    });
    await postCard(server, PROTO, proto.raw);
    protoCard = proto.id;
    // Stored records as the server writes them: the service's signature last.
    const serviceKey = parsePrivateKey(readFileSync(server.paths.serviceKey, 'utf8'));
    const many = Array.from({ length: MANY }, (_, i) => {
      const identity = `user${String(i).padStart(4, '0')}@example.com`;
      const card = makeCard(identity);
      return serializeCard({
        id: card.id,
        identity,
        content_snapshot: card.raw.content_snapshot,
        signatures: [
          ...(card.raw.signatures ?? []),
          signEntry(card.snapshot, { signer: 'service', key: serviceKey }),
        ],
      });
    });
    await importLines(server, many);
    identities = [...HOSTILE.map(([identity]) => identity), LONE[0], LONG, LATE, PROTO];
    browser = await launchBrowser();
    page = await openPage(browser, server);
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the identities: each written out as the CLI writes it, isolated, no stray text', async () => {
    for (const [identity, shown, prefix] of [...HOSTILE, LONE]) {
      await listPage(page, server.url);
      await page.fill('input[name=prefix]', prefix);
      await page.click('form button');
      await page.getByRole('link', { name: shown, exact: true }).waitFor();
      const cells = await identityCells(page);
      assert.ok(
        cells.some(([text]) => text === shown),
        `${JSON.stringify(identity)}: ${cells.map(([text]) => text).join(' | ')}`,
      );
      assert.ok(
        cells.every(([, isolated]) => isolated),
        'an identity outside a <bdi>',
      );
      assert.doesNotMatch(await viewText(page), /null|undefined/);
    }
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#identities .identity-row');
    assert.doesNotMatch(await viewText(page), /null|undefined/);
    await page.screenshot({ path: `${ARTIFACTS}page-hostile-identities.png`, fullPage: true });
  });

  test('every identity opens, whatever its characters', async () => {
    for (const [identity, shown, prefix] of HOSTILE) {
      await openIdentity(page, server.url, prefix, shown);
      assert.equal(await page.textContent('h2'), shown, JSON.stringify(identity));
      assert.equal(await page.locator('.timeline .chain').count(), 1, JSON.stringify(identity));
    }
    await openIdentity(page, server.url, 'a-very', LONG);
    await page.screenshot({ path: `${ARTIFACTS}page-hostile-long.png`, fullPage: true });
  });

  test('a created_at no Date can show: the number, out of range', async () => {
    await openIdentity(page, server.url, LATE, LATE);
    assert.match(await viewText(page), /9007199254740991 \(out of range\)/);
    await page.screenshot({ path: `${ARTIFACTS}page-hostile-late.png`, fullPage: true });
    await page.click(`a[href$="${lateCard}"]`);
    await page.waitForSelector('#verdicts .verdict');
    assert.match(await viewText(page), /created 9007199254740991 \(out of range\)/);
  });

  test('odd signer names are unchecked and written out; extra snapshots shown', async () => {
    await openIdentity(page, server.url, 'proto', PROTO);
    await page.click(`a[href$="${protoCard}"]`);
    await page.waitForSelector('#verdicts .verdict');
    const verdicts = await page.$$eval('#verdicts .verdict', (rows) =>
      rows.map((row) => [row.getAttribute('data-signer'), row.getAttribute('data-status')]),
    );
    assert.deepEqual(verdicts, [
      ['self', 'valid'],
      ['__proto__', 'unchecked'],
      ['constructor', 'unchecked'],
      ['toString', 'unchecked'],
      ['lone\ud800', 'unchecked'],
      ['service', 'valid'],
    ]);
    // A lone surrogate written out, as the CLI writes what a terminal would show as U+FFFD.
    assert.deepEqual(
      await page.$$eval('#verdicts .verdict td:first-child', (cells) =>
        cells.map((cell) => cell.textContent),
      ),
      ['self', '__proto__', 'constructor', 'toString', 'lone\\ud800', 'service'],
    );
    // As `cards get` shows it: the extra snapshot's text, its bidi control written out.
    assert.equal(
      await page.textContent('#verdicts .verdict[data-signer=__proto__] td:last-child'),
      '{"note":"extra \\u202e data"}',
    );
    await page.screenshot({ path: `${ARTIFACTS}page-hostile-card.png`, fullPage: true });
  });

  test('identities a page at a time: next, previous, a filter by prefix', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#identities .identity-row');
    const first = (await identityCells(page)).map(([text]) => text);
    assert.equal(first.length, 50);
    const seen = [...first];
    for (;;) {
      const next = page.locator('#next');
      if ((await next.count()) === 0) break;
      const top = JSON.stringify((await identityCells(page))[0]?.[0]);
      await next.click();
      await waitUntil(
        page,
        `document.querySelector('#identities .identity-row td')?.textContent !== ${top}`,
      );
      const rows = (await identityCells(page)).map(([text]) => text);
      assert.ok(rows.length <= 50);
      seen.push(...rows);
    }
    assert.equal(seen.length, identities.length + MANY);
    assert.equal(new Set(seen).size, seen.length, 'an identity on two pages');
    await page.click('#previous');
    await page.waitForSelector('#next');
    await page.click('#previous');
    await waitUntil(page, "document.querySelector('#previous') === null");
    assert.deepEqual(
      (await identityCells(page)).map(([text]) => text),
      first,
    );
    await page.fill('input[name=prefix]', 'user012');
    await page.click('form button');
    await waitUntil(page, "document.querySelectorAll('#identities .identity-row').length === 10");
    assert.equal(await page.locator('#next').count(), 0);
  });

  test('dates stay on one line, in a narrow window too', async () => {
    const narrow = await openPage(browser, server, { width: 420, height: 800 });
    try {
      const wrapped = async (): Promise<string[]> => {
        const texts = await narrow.evaluate(`(() => {
          const found = [];
          const walker = document.createTreeWalker(document.getElementById('view'), NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const match = ${DATE}.exec(node.data);
            if (!match) continue;
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
            found.push([match[0], lines.size]);
          }
          return found;
        })()`);
        const list = texts as [string, number][];
        assert.ok(list.length > 0, 'no date on the view');
        return list.filter(([, lines]) => lines > 1).map(([text]) => text);
      };
      await openIdentity(narrow, server.url, LATE, LATE);
      assert.deepEqual(await wrapped(), []);
      await narrow.click(`a[href$="${lateCard}"]`);
      await narrow.waitForSelector('#verdicts .verdict');
      assert.deepEqual(await wrapped(), []);
      await narrow.goto(`${server.url}/#/requests`);
      await narrow.waitForSelector('#requests .request');
      assert.deepEqual(await wrapped(), []);
      await narrow.screenshot({ path: `${ARTIFACTS}page-hostile-requests-narrow.png` });
    } finally {
      await narrow.close();
    }
  });

  test("the page's own requests stay out of the journal", async () => {
    await page.goto(`${server.url}/#/requests`);
    await page.waitForSelector('#requests .request');
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#identities .identity-row');
    const response = await fetch(`${server.url}/_cards/requests?limit=1000`);
    const { requests } = (await response.json()) as { requests: { path: string }[] };
    const paths = requests.map((r) => r.path);
    assert.ok(paths.includes('/card/v5'), 'the seeding requests are journaled');
    assert.deepEqual(
      paths.filter(
        (path) => path === '/' || path.startsWith('/_cards/info') || path.startsWith('/_page/'),
      ),
      [],
    );
    assert.deepEqual(
      paths.filter((path) => path.startsWith('/_cards/identities')),
      [],
    );
  });

  test('each view is drawn with no timer running', async () => {
    const frozen = await openPage(browser, server);
    try {
      // Timers do not fire at all until the clock is moved: a view that waited for one would
      // never be drawn.
      await frozen.clock.install();
      await frozen.clock.pauseAt(new Date('2030-01-01T00:00:00Z'));
      await frozen.goto(`${server.url}/`);
      await frozen.waitForSelector('#identities .identity-row');
      await frozen.goto(`${server.url}/#/requests`);
      await frozen.waitForSelector('#requests .request');
    } finally {
      await frozen.close();
    }
  });
});
