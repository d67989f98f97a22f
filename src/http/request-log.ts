/**
 * One line per request (time, method, path, status, the error code of a refusal, milliseconds,
 * and what a fault rule did to it), as text or JSON, and the server's own warnings. Lines are gathered and written once per event-loop turn, so a busy server makes
 * one write call per turn rather than one per request. What a client sent (the path) and what a
 * warning quotes (a witness's answer) are escaped for the terminal, in both formats.
 */
import { escapeTerminal, terminalJson } from '../core/terminal-text.js';
import { writeOutput } from '../io/standard-streams.js';

export interface RequestLogEntry {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  /** The refusal's code (name) when the response is an Error object, else ''. */
  readonly code: string;
  /** What a fault rule did to the request (`fault 2: INTERNAL`), else '' or absent. */
  readonly fault?: string;
}

export interface RequestLogger {
  request(entry: RequestLogEntry): void;
  /** Something a person should know (an internal error, a failed background compaction). */
  warn(message: string): void;
  /** Writes what is buffered now (on shut-down). */
  flush(): void;
}

export interface RequestLoggerOptions {
  readonly format?: 'text' | 'json';
  /** No request lines (warnings still written). */
  readonly quiet?: boolean;
  readonly write?: (text: string) => void;
  readonly clock?: () => number;
}

export function createRequestLogger(options: RequestLoggerOptions = {}): RequestLogger {
  const write = options.write ?? ((text: string) => writeOutput(process.stderr, text));
  const clock = options.clock ?? Date.now;
  const json = options.format === 'json';
  let lines: string[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    write(text);
  };
  const push = (line: string): void => {
    lines.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    request(entry) {
      if (options.quiet) return;
      const ms = Math.round(entry.ms * 10) / 10;
      const time = new Date(clock()).toISOString();
      const { method, path, status, code, fault } = entry;
      push(
        json
          ? `${terminalJson({ time, method, path, status, ...(code !== '' && { code }), ms, ...(fault && { fault }) })}\n`
          : `${time} ${method} ${escapeTerminal(path)} ${status}${code === '' ? '' : ` ${code}`} ${ms}ms${fault ? ` [${fault}]` : ''}\n`,
      );
    },
    warn(message) {
      push(
        json
          ? `${terminalJson({ time: new Date(clock()).toISOString(), level: 'warn', message })}\n`
          : `${new Date(clock()).toISOString()} warning: ${escapeTerminal(message)}\n`,
      );
    },
    flush,
  };
}

/** A logger that writes nothing (tests, embedding). */
export const silentLogger: RequestLogger = {
  request: () => undefined,
  warn: () => undefined,
  flush: () => undefined,
};
