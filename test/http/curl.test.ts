/**
 * The curl example of docs/http.md, run as written by /bin/sh with `cards` on the PATH, against a real
 * `cards serve`; without its Content-Type line curl sends a form, and the 415
 * names the header to add. Every curl example that sends a body carries the header.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Command } from 'commander';
import { makeContext } from '../helpers/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run.js';
import {
  CARDS_BIN,
  hermeticEnv,
  makeTempDir,
  removeTempDirs,
  type Served,
} from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';

const root = new URL('../../../', import.meta.url).pathname;
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The --help of `cards` and of every command, as printed. */
async function helpTexts(): Promise<string[]> {
  const program = buildProgram(makeContext({ cwd: root }), async () => undefined);
  const paths = (at: Command, path: string[]): string[][] =>
    at.commands.flatMap((c) => [[...path, c.name()], ...paths(c, [...path, c.name()])]);
  const texts: string[] = [];
  for (const path of [[], ...paths(program, [])]) {
    let text = '';
    const write = (chunk: string): boolean => ((text += chunk), true);
    await runCli(
      [...path, '--help'],
      makeContext({ cwd: root, stdout: { write }, stderr: { write } }),
    );
    texts.push(text);
  }
  return texts;
}

/** Every curl command of a text, its continuation lines joined. */
const curlCommands = (text: string): string[] =>
  (text.replace(/\\\n\s*/g, ' ').match(/^\s*(?:\$ )?curl\s.*$/gm) ?? []).map((l) =>
    l.replace(/^\s*(?:\$ )?/, ''),
  );

describe('curl against cards serve', () => {
  let server: Served;
  let dir: string;
  before(async () => {
    server = await startInProcess();
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
  // Asynchronous: the server answers from this process's event loop.
  const sh = (
    command: string,
  ): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        '/bin/sh',
        ['-c', command.replaceAll('http://127.0.0.1:8080', server.url)],
        {
          cwd: dir,
          env: hermeticEnv({
            PATH: `${dir}:${process.env.PATH ?? ''}`,
            CARDS_HOME: join(dir, 'home'),
            CARDS_DB: server.paths.store,
          }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  test("the routes page's example answers; without Content-Type the 415 names the header", async () => {
    const page = readFileSync(join(root, 'docs/http.md'), 'utf8');
    const example = curlCommands(page).find((c) => c.includes(' -d '));
    assert.ok(example, 'docs/http.md has a curl example with a body');
    const ok = await sh(example);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), []);

    const bare = await sh(
      `${example.replace(/-H 'Content-Type: application\/json' /, '')} -w '\\n%{http_code}'`,
    );
    const [body, status] = bare.stdout.split('\n');
    assert.equal(status, '415', bare.stdout);
    const error = JSON.parse(body ?? '') as { code: string; message: string };
    assert.equal(error.code, '10007');
    assert.match(error.message, /send the header "Content-Type: application\/json"/);
  });

  test('every curl example in the README, docs and help carries the Content-Type header', async () => {
    const help = await helpTexts();
    assert.ok(
      help.some((text) => curlCommands(text).length > 0),
      'a --help shows curl',
    );
    const commands = [
      ...docs.map((file) => readFileSync(join(root, file), 'utf8')),
      ...help,
    ].flatMap(curlCommands);
    assert.ok(commands.length >= 2);
    for (const command of commands)
      assert.match(command, /-H ['"]Content-Type: application\/json['"]/, command);
  });
});
