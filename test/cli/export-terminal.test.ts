/**
 * `cards export` without --out writes the dump to stdout: through a pipe byte for byte, and on
 * a terminal with every control a line holds escaped (ESC sequences, C1, bidi overrides, a
 * carriage return), as the CLI's text views show card data (core/terminal-text.ts), so a
 * hostile server's answer cannot retitle, clear or reorder the screen. The line breaks between
 * records are kept. The server here is a small fake admin API that answers such a dump.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { BIN, sandbox, type Sandbox } from './harness.js';
import { onTerminal } from './pty.js';

const ESC = '\u001b';
// The 2-byte UTF-8 of U+202E split across two writes, as a network chunk may split it.
const DUMP = [
  Buffer.from(`{"identity":"a${ESC}]0;owned\u0007${ESC}[2J\u009b31m\r`),
  Buffer.from('\nforged\u2066"}\n{"identity":"b\u202e'),
  Buffer.from('c"}\n'),
];
const DUMP_BYTES = Buffer.concat(DUMP);

let server: Server;
let url: string;
let box: Sandbox;
before(async () => {
  box = sandbox({});
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    // Each piece is its own chunk: a character split between two of them is shown whole.
    const [first, second, third] = DUMP.map((b) => Buffer.from(b));
    const cut = second!.indexOf(Buffer.from('\u202e')) + 1;
    res.write(first);
    res.write(second!.subarray(0, cut));
    setTimeout(() => res.end(Buffer.concat([second!.subarray(cut), third!])), 50);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  box.cleanup();
});

test('a pipe gets the exact bytes of the dump', async () => {
  const child = spawn(process.execPath, [BIN, 'export', '--url', url, '--admin-token', 't'], {
    cwd: box.dir,
    env: box.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(status, 0);
  assert.deepEqual(Buffer.concat(out), DUMP_BYTES);
});

test('a terminal shows every control of the dump escaped, its record lines kept', async () => {
  const run = onTerminal(['export', '--url', url, '--admin-token', 't'], {
    cwd: box.dir,
    env: box.env,
  });
  const { status, screen } = await run.exited;
  assert.equal(status, 0, screen);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(screen, /[\u0007\u009b\u202e\u2066]/, screen);
  assert.match(screen, /\{"identity":"a\\x1b\]0;owned\\x07\\x1b\[2J\\x9b31m\\r\n/, screen);
  assert.match(screen, /^forged\\u2066"\}\n\{"identity":"b\\u202ec"\}\n/m, screen);
  assert.match(screen, /exported 3 cards from http/, screen);
});
