// Runs the project's own CLI (`node bin/cards.js …`) as a subprocess, hermetically: a clean
// environment (no CARDS_* settings leaking in, no colour) and an optional stdin.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CARDS_BIN = join(REPO_ROOT, 'bin', 'cards.js');

/**
 * A private working directory and CARDS_HOME (keystore, config file) for every CLI run of
 * this process, so that nothing reads or writes ~/.cards or the repository.
 */
export const SANDBOX = mkdtempSync(join(tmpdir(), 'cards-interop-cli-'));
process.on('exit', () => rmSync(SANDBOX, { recursive: true, force: true }));

/** process.env without CARDS_* variables and NODE_OPTIONS, colour off, home in SANDBOX. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('CARDS_') || name === 'NODE_OPTIONS' || name === 'FORCE_COLOR') continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: '1', CARDS_HOME: join(SANDBOX, 'home'), ...extra };
}

/**
 * @param {string[]} args
 * @param {{ input?: string, env?: Record<string,string>, timeoutMs?: number }} [options]
 * @returns {Promise<{ status: number|null, stdout: string, stderr: string }>}
 */
export function runCards(args, { input, env = {}, timeoutMs = 30_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CARDS_BIN, ...args], {
      cwd: SANDBOX,
      env: cleanEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolvePromise({ status, stdout, stderr });
    });
    child.stdin.on('error', () => {}); // the CLI may exit before reading stdin
    child.stdin.end(input ?? '');
  });
}

/** Formats a CLI result for an assertion message. */
export const describeRun = (args, r) =>
  `cards ${args.join(' ')} → exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

/** `cards ARGS` against a loopback `cards serve` at `url` (its admin API needs no token); exit 0 asserted. */
export async function cardsAt(url, args) {
  const all = [...args, '--url', url];
  const r = await runCards(all);
  if (r.status !== 0) throw new Error(describeRun(all, r));
  return r;
}
