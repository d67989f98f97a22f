// Starting and stopping the servers under test, each in its own process: `cards serve` (the
// built bin/cards.js) and json-server 0.17 (bench/node_modules). Their output goes to a log
// file in their folder, so nothing in this process spends time reading it.
// BENCH_CARDS_BIN=/other/checkout/bin/cards.js measures another build (an A/B comparison).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileHome } from '../../dist/src/server/file-home.js';

export const CARDS_BIN =
  process.env.BENCH_CARDS_BIN ?? new URL('../../bin/cards.js', import.meta.url).pathname;
const JSON_SERVER_BIN = new URL('../node_modules/json-server/lib/cli/bin.js', import.meta.url)
  .pathname;

/** This machine's environment without CARDS_* settings or NODE_OPTIONS, plus `extra`. */
export function hermeticEnv(extra = {}) {
  const out = { ...process.env };
  for (const key of Object.keys(out))
    if (key.startsWith('CARDS_') || key === 'NODE_OPTIONS') delete out[key];
  return { ...out, ...extra };
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc, 10 ms ticks). */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Servers still running: killed when the bench exits, even by a crash (no orphan holds a port). */
const running = new Set();
process.once('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

function spawnLogged(args, dir, name) {
  const log = join(dir, `${name}.log`);
  const fd = openSync(log, 'a');
  const proc = spawn(process.execPath, args, {
    cwd: dir,
    env: hermeticEnv(),
    stdio: ['ignore', 'pipe', fd],
  });
  closeSync(fd);
  running.add(proc);
  const exited = new Promise((resolve) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    }),
  );
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    const result = await exited;
    if (result.code !== 0 && result.signal !== 'SIGTERM')
      throw new Error(`${name} exited with ${result.code ?? result.signal}; see ${log}`);
  };
  return { proc, log, exited, stop };
}

/**
 * `cards serve --port 0` on the store in `dir`; resolves once it prints "listening on", with the
 * milliseconds from spawn to that line. `args` adds flags, `nodeArgs` node's own (--cpu-prof),
 * `bin` another build's bin/cards.js (an A/B comparison in one run).
 */
export async function startCards(dir, args = [], nodeArgs = [], bin = CARDS_BIN) {
  const started = performance.now();
  const run = spawnLogged(
    [
      ...nodeArgs,
      bin,
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--db',
      join(dir, 'cards.json'),
      ...args,
    ],
    dir,
    'cards-serve',
  );
  const url = await listeningUrl(run, 'cards serve');
  const listeningMs = performance.now() - started;
  return { ...run, url, listeningMs, appKey: fileHome(join(dir, 'cards.json')).appKey };
}

/** The URL of a spawned server's `listening on URL` line, its stdout drained after. */
async function listeningUrl(run, name) {
  const url = await new Promise((resolve, reject) => {
    let out = '';
    run.proc.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = /^listening on (\S+)$/m.exec(out);
      if (match) resolve(match[1]);
    });
    run.exited.then((r) =>
      reject(new Error(`${name} exited (${r.code ?? r.signal}): ${readFileSync(run.log, 'utf8')}`)),
    );
  });
  run.proc.stdout.resume();
  return url;
}

/** The create floor (create-floor-server.mjs), its line file in `dir`. */
export async function startCreateFloor(dir) {
  const bin = new URL('./create-floor-server.mjs', import.meta.url).pathname;
  const run = spawnLogged([bin, dir], dir, 'create-floor');
  return { ...run, url: await listeningUrl(run, 'the create floor') };
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** json-server on `dbFile` (in `dir`); resolves once it answers over HTTP. */
export async function startJsonServer(dir, dbFile) {
  const port = await freePort();
  const run = spawnLogged(
    [JSON_SERVER_BIN, dbFile, '--port', String(port), '--host', '127.0.0.1', '--quiet'],
    dir,
    'json-server',
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (run.proc.exitCode !== null)
      throw new Error(`json-server exited: ${readFileSync(run.log, 'utf8')}`);
    try {
      const response = await fetch(`${url}/db`, { method: 'HEAD' });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('json-server did not start within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  run.proc.stdout.resume();
  return { ...run, url };
}
