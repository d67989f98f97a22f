/**
 * What the browser tests share: Debian's headless Chromium driven by playwright-core (never a
 * browser a tool downloads), where screenshots go, and how cards the Cards API would refuse
 * are put into a real `cards serve` (the admin import, which does not check signatures).
 *
 * Without /usr/bin/chromium the tests are skipped with a line saying how to run them, unless
 * CARDS_REQUIRE_BROWSER=1 (set by .ci/run), where a missing browser fails.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { awakeTimer } from '../helpers/awake.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';
import type { Served } from '../helpers/server.js';

export const ARTIFACTS = new URL('../../../test-artifacts/', import.meta.url).pathname;
const available = existsSync(CHROMIUM);
const required = process.env.CARDS_REQUIRE_BROWSER === '1';
const missing = available
  ? false
  : 'no Chromium at /usr/bin/chromium: install it (apt-get install -y chromium) and run `npm test -- browser`';
if (missing && !required) console.log(`# browser tests skipped: ${missing}`);

/** The `skip` option of a browser suite. */
export const skip: string | false = required ? false : missing;

/** Chromium, or a failure saying why there is none. */
export async function launchBrowser(): Promise<Browser> {
  assert.ok(available, `CARDS_REQUIRE_BROWSER=1 but ${missing}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
}

/**
 * A page that fails the test on any request to another host, on any uncaught error in the
 * page's scripts and on anything the page's policy blocks.
 */
export async function openPage(
  browser: Browser,
  server: Served,
  viewport = { width: 1200, height: 800 },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('request', (request) =>
    assert.ok(request.url().startsWith(server.url), `request to ${request.url()}`),
  );
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  // Anything the page's Content-Security-Policy blocks is a failure too (Chromium tells it on
  // the console).
  page.on('console', (message) =>
    assert.ok(
      !/Content Security Policy/i.test(message.text()),
      `blocked by the page's policy: ${message.text()}`,
    ),
  );
  return page;
}

/** Stored card records (NDJSON lines) added through the admin import; fails on a refusal. */
export async function importLines(server: Served, lines: readonly string[]): Promise<void> {
  const imported = await fetch(`${server.url}/_cards/import?append=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: lines.map((line) => `${line}\n`).join(''),
  });
  assert.equal(imported.status, 200, await imported.text());
}

/**
 * Waits until `expression` is true in the page. Not page.waitForFunction: it compiles its
 * predicate with `new Function` inside the page, which the page's Content-Security-Policy
 * forbids (no 'unsafe-eval'); page.evaluate goes through the DevTools protocol, which the policy
 * does not govern.
 */
export async function waitUntil(page: Page, expression: string, ms = 10_000): Promise<void> {
  let late = false;
  const timer = awakeTimer(ms, () => (late = true), { keepAlive: false });
  try {
    for (;;) {
      if (await page.evaluate<boolean>(expression)) return;
      assert.ok(!late, `not true within ${ms} ms: ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    timer.clear();
  }
}
