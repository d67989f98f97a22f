// Starts `node bin/cards.js serve --compat virgil` on a free loopback port in a temporary
// directory and reads what it prints: the base URL ("listening on http://127.0.0.1:PORT") and
// the service public key (base64 DER SPKI) that stock clients pin for signer "virgil".
// Never touches anything outside its own temporary directory. With CARDS_INTEROP_STORE=postgres
// (run-tests.mjs sets it for its second pass, with CARDS_TEST_DATABASE_URL naming the throwaway
// PostgreSQL it started), each server gets a fresh schema of that database (`--store URL`)
// instead of a JSON store file: the same tests, against a PostgreSQL-backed server.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CARDS_BIN, cleanEnv } from './cli.mjs';

/** A new empty schema of the PostgreSQL run-tests.mjs started (the project's test helper). */
async function freshStore() {
  const helper = new URL('../../dist/test/helpers/postgres.js', import.meta.url);
  const { freshStoreUrl } = await import(helper.href);
  return freshStoreUrl();
}

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
// 44-byte Ed25519 SPKI in base64: 60 characters, fixed 16-character prefix, one '=' of padding.
const SPKI_B64 = /MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * @param {object} [options]
 * @param {string[]} [options.jwtKeys] trusted app public keys (base64 DER SPKI), one --jwt-key each
 * @param {string} [options.appId] --app-id
 * @param {string} [options.appKeyId] --app-key-id
 * @param {string[]} [options.args] more flags
 * @param {Record<string, string>} [options.env] more environment (CARDS_* settings)
 */
export async function startServer({ jwtKeys = [], appId, appKeyId, args = [], env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cards-interop-'));
  const db =
    process.env.CARDS_INTEROP_STORE === 'postgres' ? await freshStore() : join(dir, 'cards.json');
  const argv = [CARDS_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--store', db];
  argv.push('--compat', 'virgil', '--quiet');
  for (const key of jwtKeys) argv.push('--jwt-key', key);
  if (appId !== undefined) argv.push('--app-id', appId);
  if (appKeyId !== undefined) argv.push('--app-key-id', appKeyId);
  argv.push(...args);

  const child = spawn(process.execPath, argv, {
    cwd: dir,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });

  const { url, serviceKey } = await new Promise((resolve, reject) => {
    let settle;
    let started = false;
    const fail = (why) => {
      if (started) return;
      started = true;
      clearTimeout(timer);
      clearTimeout(settle);
      child.kill('SIGKILL');
      reject(
        new Error(
          `cards serve ${why}\nargs: ${argv.join(' ')}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    };
    const timer = setTimeout(
      () => fail(`printed no URL and service key within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    child.on('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
    child.on('error', (err) => fail(`could not start: ${err.message}`));
    const look = () => {
      const found = parseBanner(stdout, jwtKeys);
      if (!found.url || !found.serviceKey) return;
      const done = () => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        resolve(parseBanner(stdout, jwtKeys));
      };
      clearTimeout(settle);
      // A key on a line naming the service is final; any other key gets a moment to be
      // overtaken by one that does.
      if (found.certain) done();
      else settle = setTimeout(done, 500);
    };
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      look();
    });
  });

  if (process.env.CARDS_INTEROP_STORE === 'postgres' && !/^store: PostgreSQL /m.test(stdout)) {
    child.kill('SIGKILL');
    throw new Error(`cards serve is not on PostgreSQL:\n${stdout}`);
  }
  return {
    url,
    serviceKey,
    dir,
    db,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    /** SIGTERM, then waits for exit (SIGKILL after a while); removes the temp dir. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timeout = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const result = await exited;
      clearTimeout(timeout);
      rmSync(dir, { recursive: true, force: true });
      return { ...result, stdout, stderr };
    },
  };
}

/** Reads the URL and service key out of what `cards serve` printed so far. */
export function parseBanner(text, notKeys = []) {
  let url;
  let serviceKey;
  let certain = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(ANSI, '');
    const listening = /listening on (https?:\/\/[^\s'"<>]+)/i.exec(line);
    if (listening && !url) url = listening[1].replace(/[/.,;]+$/, '');
    const keys = (line.match(SPKI_B64) ?? []).filter((k) => !notKeys.includes(k));
    if (keys.length === 0) continue;
    const namesService = /service|virgil|server/i.test(line) && !/app|jwt|trust/i.test(line);
    if (namesService && !certain) {
      serviceKey = keys[0];
      certain = true;
    } else if (!serviceKey) serviceKey = keys[0];
  }
  return { url, serviceKey, certain };
}
