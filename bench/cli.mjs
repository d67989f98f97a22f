// Measures on the command line: `cards --version` start-up, and `cards seed` of a generated
// seed file against a local `cards serve`. Both time the whole process, spawn to exit, as a
// person or a CI job would see it.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './lib/load.mjs';
import { CARDS_BIN, hermeticEnv } from './lib/servers.mjs';

/**
 * Runs bin/cards.js with `args`; resolves with wall-clock ms, refusing a non-zero exit or a run
 * longer than `timeoutMs` (killed, so that a stuck command cannot stall the whole bench).
 */
function runCards(args, cwd, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const env = hermeticEnv({ NO_COLOR: '1', CARDS_HOME: join(cwd, 'home') });
    const proc = spawn(process.execPath, [CARDS_BIN, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`cards ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** Median wall-clock ms of `spawns` runs of `cards --version`. */
export async function measureVersion(dir, spawns) {
  const times = [];
  for (let i = 0; i < spawns; i++) times.push(await runCards(['--version'], dir));
  return median(times);
}

/**
 * A seed file of `count` cards (docs/cli.md, "Seed files"): one identity in four has a card and
 * its replacement, the others a single card with an extra snapshot field.
 */
export function writeSeedFile(dir, count) {
  const pairs = Math.floor(count / 5);
  const seed = {
    version: 1,
    identities: [
      {
        ref: 'pair-${n}',
        identity: 'pair-${n}@example.com',
        count: pairs,
        cards: [{ name: 'pair-${n}-a' }, { name: 'pair-${n}-b', replaces: 'pair-${n}-a' }],
      },
      {
        ref: 'solo-${n}',
        identity: 'solo-${n}@example.com',
        count: count - 2 * pairs,
        cards: [{ extra: { device: 'laptop', n: '${n}' } }],
      },
    ],
  };
  const file = join(dir, 'seed.json');
  writeFileSync(file, JSON.stringify(seed, null, 2));
  return file;
}

/**
 * Wall-clock ms of `cards seed FILE` against `server` (its local app key found with --db);
 * a seed that fails or takes over four times its target is recorded as an error, not a figure.
 */
export async function measureSeed(server, storeDir, file, timeoutMs) {
  const args = ['seed', file, '--url', server.url, '--db', join(storeDir, 'cards.json'), '--json'];
  try {
    return { ms: await runCards(args, storeDir, timeoutMs) };
  } catch (err) {
    return { ms: NaN, error: err.message };
  }
}
