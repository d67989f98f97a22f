/**
 * The process's limit of open files (RLIMIT_NOFILE, its soft value: what open(2) and accept(2)
 * are held to; node raises it to the hard limit as it starts), read from Linux's
 * /proc/self/limits (proc(5)). Undefined where there is no such file, or when it is unlimited.
 */
import { readFileSync } from 'node:fs';

export function openFileLimit(): number | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}
