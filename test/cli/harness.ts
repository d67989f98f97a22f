/**
 * Runs `cards …` in a temporary CARDS_HOME and working folder, with stdin a pipe (never a
 * terminal, so nothing can prompt) and a clean environment: no CARDS_* variable of the machine
 * leaks in. Tests are hermetic: temp dirs, loopback, port 0.
 *
 * `sandbox().cards` runs the command in this process by default: the executable's funnel
 * (`runCli`) in a context made of the sandbox (its folder, environment and input; stdout and
 * stderr captured, not terminals), which costs a test no process start. `{ process: true }`
 * (and `runCards`) spawns `node bin/cards.js` instead, for what only a process shows: its exit
 * by signal, its streams and environment as the executable sets them up, a kill from outside.
 * `commandResult` runs a command in-process and returns its result unprinted, for what a test
 * injects (prompt answers).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext, InStream } from '../../src/cli/context.js';
import { makeContext } from '../helpers/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run.js';
import { resolveOptions } from '../../src/cli/value-sources.js';
import { awakeTimer } from '../helpers/awake.js';

/**
 * `cards ARGS…` in-process in `ctx`: the command's declaration parses and layers its flags as
 * the executable does, and its run's result is returned (or its error thrown) unprinted.
 */
export async function commandResult<T>(ctx: CommandContext, args: readonly string[]): Promise<T> {
  let result: unknown;
  const program = buildProgram(ctx, async (declaration, command) => {
    const options = resolveOptions(command, ctx);
    result = await declaration.run?.(ctx, options, command.processedArgs as string[], command);
  });
  await program.parseAsync(args, { from: 'user' });
  return result as T;
}

/** The options `cards ARGS…` would run with in `ctx`, layered, each with its source. */
export async function commandOptions<O>(
  ctx: CommandContext,
  args: readonly string[],
): Promise<O & { sources: Record<string, string> }> {
  let options: unknown;
  const program = buildProgram(ctx, async (_declaration, command) => {
    options = resolveOptions(command, ctx);
  });
  await program.parseAsync(args, { from: 'user' });
  return options as O & { sources: Record<string, string> };
}

export const BIN = new URL('../../../bin/cards.js', import.meta.url).pathname;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export interface CardsOptions {
  /** What the command reads on stdin (a pipe that ends after it). */
  input?: string;
  /** Variables added to the sandbox's environment; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Spawn `node bin/cards.js` instead of running in this process. */
  process?: boolean;
}

export interface Sandbox {
  readonly dir: string;
  readonly home: string;
  readonly env: Record<string, string>;
  cards(args: readonly string[], options?: CardsOptions): Promise<CliResult>;
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
      const run = options.process === true ? runCards : runCardsInProcess;
      return run(args, {
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
/** How long a hung command gets to write its diagnostic report before it is killed. */
const REPORT_WAIT_MS = 3_000;

export interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  input?: string;
  limitMs?: number;
}

const cliResult = (status: number | null, stdout: string, stderr: string): CliResult => ({
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

/**
 * `cards ARGS…` through the executable's funnel in this process, in a context of `options`
 * alone (nothing of this process's environment, folder or streams). A command still running
 * at the limit is abandoned with status null, and what keeps this process busy in stderr, so
 * that its test fails by name.
 */
export function runCardsInProcess(
  args: readonly string[],
  options: RunOptions,
): Promise<CliResult> {
  const limitMs = options.limitMs ?? COMMAND_LIMIT_MS;
  let stdout = '';
  let stderr = '';
  const input = options.input ?? '';
  const stdin: InStream = {
    async *[Symbol.asyncIterator]() {
      if (input !== '') yield Buffer.from(input);
    },
  };
  const ctx = makeContext({
    cwd: options.cwd,
    env: options.env,
    stdin,
    stdout: { write: (chunk: string) => ((stdout += chunk), true) },
    stderr: { write: (chunk: string) => ((stderr += chunk), true) },
  });
  return new Promise((resolve, reject) => {
    const limit = awakeTimer(limitMs, () => {
      const busy = process.getActiveResourcesInfo().join(', ');
      resolve(
        cliResult(
          null,
          stdout,
          `${stderr}\n[harness] cards ${args.join(' ').slice(0, 200)} still running after ${limitMs / 1000} s: abandoned\n[harness] resources keeping this process busy: ${busy}`,
        ),
      );
    });
    runCli(args, ctx).then(
      (status) => {
        limit.clear();
        resolve(cliResult(status, stdout, stderr));
      },
      (err: unknown) => {
        limit.clear();
        reject(err as Error);
      },
    );
  });
}

/** `node bin/cards.js ARGS…` as a subprocess. */
export function runCards(args: readonly string[], options: RunOptions): Promise<CliResult> {
  const limitMs = options.limitMs ?? COMMAND_LIMIT_MS;
  return new Promise((resolve, reject) => {
    // A command still running at the limit is asked (SIGUSR2) for node's diagnostic report:
    // its JavaScript stack and open handles say where it hung, in the failing test's output.
    const reports = mkdtempSync(join(tmpdir(), 'cards-report-'));
    const report = join(reports, 'report.json');
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: {
        ...options.env,
        NODE_OPTIONS: `--report-on-signal --report-signal=SIGUSR2 --report-filename=${report}`,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    // A command that hangs fails its test by name, with what it printed and where it was,
    // instead of the whole file running into node:test's timeout with nothing said.
    // The limit counts running time only (helpers/awake.ts): a host that stops this machine for
    // minutes does not make a command that was about to finish look hung.
    let kill: NodeJS.Timeout | undefined;
    const limit = awakeTimer(limitMs, () => {
      // What the kernel says first: a process blocked in a system call or spinning never
      // answers SIGUSR2 (the report is written by its JavaScript thread).
      const kernel = `${kernelView(child.pid)}\n${nativeStacks(child.pid)}`;
      child.kill('SIGUSR2');
      kill = setTimeout(() => {
        stderr += `\n[harness] cards ${args.join(' ').slice(0, 200)} still running after ${limitMs / 1000} s: killed\n${kernel}\n${whereItWas(report)}`;
        child.kill('SIGKILL');
      }, REPORT_WAIT_MS);
    });
    child.on('close', (status) => {
      limit.clear();
      clearTimeout(kill);
      rmSync(reports, { recursive: true, force: true });
      resolve(cliResult(status, stdout, stderr));
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Each thread of a hung process as Linux sees it (/proc): its name, state (R running, S
 * sleeping, D waiting on I/O) and the system call it is in (`/proc/…/syscall`: its number and
 * arguments, or "running"), so a hang with no diagnostic report still says where it was.
 */
function kernelView(pid: number | undefined): string {
  const read = (path: string): string => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch (err) {
      return `(${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`;
    }
  };
  if (pid === undefined) return '[harness] threads: no pid';
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return '[harness] threads: /proc not readable';
  }
  const lines = tasks.map((task) => {
    const at = `/proc/${pid}/task/${task}`;
    const stat = read(`${at}/stat`);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return `  ${task} ${read(`${at}/comm`)} ${state} syscall ${read(`${at}/syscall`)} wchan ${read(`${at}/wchan`)}`;
  });
  return `[harness] threads (id, name, state, system call):\n${lines.join('\n')}`;
}

/**
 * Each thread's native stack, from gdb where it is installed: a process whose JavaScript thread
 * waits on a lock inside node or V8 writes no report, and only its C++ frames say which lock.
 */
function nativeStacks(pid: number | undefined): string {
  if (pid === undefined) return '[harness] native stacks: no pid';
  const gdb = spawnSync(
    'gdb',
    ['-p', String(pid), '-batch', '-nx', '-ex', 'thread apply all bt 25'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (gdb.error || gdb.status !== 0)
    return `[harness] native stacks: gdb ${gdb.error ? `not run (${gdb.error.message})` : `exit ${gdb.status}`}`;
  const frames = gdb.stdout
    .split('\n')
    .filter((line) => /^(Thread \d|#\d)/.test(line))
    .map((line) => `  ${line.length > 240 ? `${line.slice(0, 240)}…` : line}`);
  return `[harness] native stacks (gdb):\n${frames.join('\n')}`;
}

/** The JavaScript stack and the open handles of a node diagnostic report, for a hung command. */
function whereItWas(file: string): string {
  type Endpoint = { host: string; ip4?: string; ip6?: string; port: number } | null | undefined;
  let report: {
    javascriptStack?: { stack?: string[] };
    libuv?: {
      type: string;
      is_active: boolean;
      is_referenced?: boolean;
      localEndpoint?: Endpoint;
      remoteEndpoint?: Endpoint;
      firesInMsFromNow?: number;
    }[];
  };
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as typeof report;
  } catch (err) {
    return `[harness] no diagnostic report (${(err as Error).message})`;
  }
  const stack = (report.javascriptStack?.stack ?? []).filter((line) => /^\s*at /.test(line));
  const at = (e: Endpoint): string => (e ? `${e.ip4 ?? e.ip6 ?? e.host}:${e.port}` : '-');
  const handles = (report.libuv ?? []).filter(
    (h) => h.is_active && h.is_referenced === true && h.type !== 'loop',
  );
  return [
    stack.length > 0
      ? `[harness] JavaScript stack:\n${stack.map((line) => `  ${line.trim()}`).join('\n')}`
      : '[harness] JavaScript stack: none (waiting in the event loop)',
    '[harness] handles keeping it alive:',
    ...handles.map(
      (h) =>
        `  ${h.type}${h.localEndpoint !== undefined ? ` ${at(h.localEndpoint)} -> ${at(h.remoteEndpoint)}` : ''}` +
        `${h.firesInMsFromNow !== undefined ? ` fires in ${h.firesInMsFromNow} ms` : ''}`,
    ),
  ].join('\n');
}

/** For assertion messages: what the command printed. */
export const said = (r: CliResult): string =>
  `exit ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
