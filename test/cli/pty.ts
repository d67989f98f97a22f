/**
 * Runs `node bin/cards.js …` on a real pseudo-terminal, for what only happens on a terminal
 * (questions, Ctrl-C, the progress bar). util-linux `script` makes the terminal: no native
 * module to build. `script -e` returns the command's exit status; what we write to its stdin
 * is typed on the terminal, so "\x03" is a Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { BIN } from './harness.js';

export interface PtyRun {
  /** Everything the terminal showed so far, escape sequences removed. */
  screen(): string;
  /** Resolves once the screen matches `pattern` (fails after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  /** Types on the terminal. */
  type(text: string): void;
  /** The exit status and the whole screen, once the command ended. */
  readonly exited: Promise<{ status: number | null; screen: string }>;
}

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

// CSI and OSC sequences, and the carriage returns a terminal adds.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007|\u001b[()][A-Z0-9]|\r/g;

export function onTerminal(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): PtyRun {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...options.env, SHELL: '/bin/sh', TERM: 'xterm', COLUMNS: '120', LINES: '40' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: string): void => {
    raw += chunk;
    for (const check of waiters) check();
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  const screen = (): string => raw.replace(ESCAPES, '');
  const exited = new Promise<{ status: number | null; screen: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, screen: screen() }));
  });
  // A test that fails must not leave a command waiting on its terminal.
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void exited.then(() => clearTimeout(killer));
  return {
    screen,
    exited,
    type: (text) => child.stdin.write(text),
    waitFor: (pattern, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`terminal never showed ${pattern}; it shows:\n${screen()}`));
        }, ms);
        const check = (): void => {
          if (!pattern.test(screen())) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}
