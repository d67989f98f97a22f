/**
 * Runs `node bin/cards.js …` as a subprocess in a temporary CARDS_HOME and working folder, with
 * stdin a pipe (never a terminal, so nothing can prompt) and a clean environment: no CARDS_*
 * variable of the machine leaks in. Tests are hermetic: temp dirs, loopback, port 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = new URL('../../../bin/cards.js', import.meta.url).pathname;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export interface Sandbox {
  readonly dir: string;
  readonly home: string;
  readonly env: Record<string, string>;
  cards(
    args: readonly string[],
    options?: { input?: string; env?: Record<string, string | undefined> },
  ): Promise<CliResult>;
  cleanup(): void;
}

export function sandbox(extraEnv: Record<string, string> = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'cards-cli-'));
  const home = join(dir, 'home');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    CARDS_HOME: home,
    NO_COLOR: '1',
    ...extraEnv,
  };
  return {
    dir,
    home,
    env,
    cards: (args, options = {}) => {
      const merged: Record<string, string> = { ...env };
      for (const [k, v] of Object.entries(options.env ?? {})) {
        if (v === undefined) delete merged[k];
        else merged[k] = v;
      }
      return runCards(args, {
        cwd: dir,
        env: merged,
        ...(options.input === undefined ? {} : { input: options.input }),
      });
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The longest one CLI command may run in a test (each takes seconds even on a loaded host). */
const COMMAND_LIMIT_MS = 90_000;

export function runCards(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    // A command that hangs fails its test by name, with what it printed, instead of the whole
    // file running into node:test's timeout with nothing said.
    const limit = setTimeout(() => {
      stderr += `\n[harness] cards ${args.join(' ').slice(0, 200)} still running after ${COMMAND_LIMIT_MS / 1000} s: killed`;
      child.kill('SIGKILL');
    }, COMMAND_LIMIT_MS);
    child.on('close', (status) => {
      clearTimeout(limit);
      resolve({
        status,
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(
              `stdout is not one JSON document (exit ${status}):\n${stdout}\nstderr:\n${stderr}`,
            );
          }
        },
      });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** For assertion messages: what the command printed. */
export const said = (r: CliResult): string =>
  `exit ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
