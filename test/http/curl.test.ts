/**
 * The curl example of docs/http.md, run as written by /bin/sh with `cards` on the PATH, against a real
 * `cards serve` (issue 12.13); without its Content-Type line curl sends a form, and the 415
 * names the header to add. Every curl example that sends a body carries the header.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CARDS_BIN,
  hermeticEnv,
  makeTempDir,
  removeTempDirs,
  startServer,
  type TestServer,
} from '../helpers/server.js';

const root = new URL('../../../', import.meta.url).pathname;
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'src/cli/program.ts',
];

/** Every curl command of a text, its continuation lines joined. */
const curlCommands = (text: string): string[] =>
  (text.replace(/\\\n\s*/g, ' ').match(/^\s*(?:\$ )?curl\s.*$/gm) ?? []).map((l) =>
    l.replace(/^\s*(?:\$ )?/, ''),
  );

describe('curl against cards serve', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startServer();
    dir = makeTempDir('cards-curl-');
    writeFileSync(
      join(dir, 'cards'),
      `#!/bin/sh\nexec "${process.execPath}" "${CARDS_BIN}" "$@"\n`,
    );
    chmodSync(join(dir, 'cards'), 0o755);
  });
  after(async () => {
    await server.dispose();
    removeTempDirs();
  });
  const sh = (command: string) =>
    spawnSync('/bin/sh', ['-c', command.replaceAll('http://127.0.0.1:8080', server.url)], {
      cwd: dir,
      encoding: 'utf8',
      env: hermeticEnv({
        PATH: `${dir}:${process.env.PATH ?? ''}`,
        CARDS_HOME: join(dir, 'home'),
        CARDS_DB: server.paths.store,
      }),
    });

  test("the routes page's example answers; without Content-Type the 415 names the header", () => {
    const page = readFileSync(join(root, 'docs/http.md'), 'utf8');
    const example = curlCommands(page).find((c) => c.includes(' -d '));
    assert.ok(example, 'docs/http.md has a curl example with a body');
    const ok = sh(example);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), []);

    const bare = sh(
      `${example.replace(/-H 'Content-Type: application\/json' /, '')} -w '\\n%{http_code}'`,
    );
    const [body, status] = bare.stdout.split('\n');
    assert.equal(status, '415', bare.stdout);
    const error = JSON.parse(body ?? '') as { code: string; message: string };
    assert.equal(error.code, '10007');
    assert.match(error.message, /send the header "Content-Type: application\/json"/);
  });

  test('every curl example in the README, docs and help carries the Content-Type header', () => {
    const commands = docs.flatMap((file) => curlCommands(readFileSync(join(root, file), 'utf8')));
    assert.ok(commands.length >= 2);
    for (const command of commands)
      assert.match(command, /-H ['"]Content-Type: application\/json['"]/, command);
  });
});
