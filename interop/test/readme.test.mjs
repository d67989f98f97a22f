// Runs the JavaScript of docs/stock-sdk.md ("Use with the stock SDK"), as written, against
// `cards serve --compat virgil`: the CardManager set-up publishes alice's card, the e3kit-node
// set-up registers bob and finds alice. Only the placeholders are filled in (credentials,
// service key, URL, storage folders), so the page cannot drift from what works.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cleanEnv, REPO_ROOT } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import { makeApp, makeCardManager } from '../lib/stock.mjs';

const PAGE = join(REPO_ROOT, 'docs', 'stock-sdk.md');
const TITLE = '# Use with the stock SDK';
const app = makeApp();
let server;
let dir;

before(async () => {
  server = await startServer({
    jwtKeys: [app.publicKeyBase64],
    appId: app.appId,
    appKeyId: app.appKeyId,
  });
  dir = mkdtempSync(join(tmpdir(), 'cards-interop-readme-'));
  symlinkSync(join(REPO_ROOT, 'interop', 'node_modules'), join(dir, 'node_modules'), 'dir');
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The ```js blocks of docs/stock-sdk.md. */
function readmeSnippets() {
  const page = readFileSync(PAGE, 'utf8');
  assert.ok(page.startsWith(`${TITLE}\n`), `docs/stock-sdk.md does not start with "${TITLE}"`);
  return [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

function runNode(file) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-experimental-fetch', file], {
      cwd: dir,
      env: cleanEnv(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

test('the set-up code of docs/stock-sdk.md runs against cards serve as written', async () => {
  const snippets = readmeSnippets();
  assert.equal(snippets.length, 2, 'a CardManager block and an e3kit-node block');
  const code = snippets
    .join('\n')
    .replaceAll("'http://127.0.0.1:8080'", JSON.stringify(server.url))
    .replaceAll("'.e3kit/keys'", JSON.stringify(join(dir, 'keys')))
    .replaceAll("'.e3kit/groups'", JSON.stringify(join(dir, 'groups')));
  assert.ok(code.includes(server.url), 'the snippets name the default URL');
  const placeholders = [
    `const APP_ID = ${JSON.stringify(app.appId)};`,
    `const APP_KEY_ID = ${JSON.stringify(app.appKeyId)};`,
    `const APP_KEY = ${JSON.stringify(app.privateKeyBase64)};`,
    `const SERVICE_KEY = ${JSON.stringify(server.serviceKey)};`,
  ].join('\n');
  const report = 'console.log(JSON.stringify({ alice: card.id, found: aliceCard.id, encrypted }));';
  const file = join(dir, 'readme-snippets.mjs');
  writeFileSync(file, `${placeholders}\n${code}\n${report}\n`);

  const run = await runNode(file);
  assert.equal(
    run.status,
    0,
    `docs/stock-sdk.md code failed:\n${run.stderr}\n--- code ---\n${code}`,
  );
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.match(result.alice, /^[0-9a-f]{64}$/);
  assert.equal(result.found, result.alice, 'e3kit found the card CardManager published');
  assert.equal(typeof result.encrypted, 'string');

  // what the page's code left on the server: alice's card and bob's, both verifiable
  const manager = makeCardManager({
    url: server.url,
    serviceKey: server.serviceKey,
    getJwt: () => app.token('reader'),
  });
  const cards = await manager.searchCards(['alice', 'bob']);
  assert.deepEqual(cards.map((c) => c.identity).sort(), ['alice', 'bob']);
});
