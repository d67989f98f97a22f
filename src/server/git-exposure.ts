/**
 * Private keys a server made inside a git work tree that does not ignore them are one `git add .`
 * from a commit. `git check-ignore` answers for the work tree the file is in,
 * with every .gitignore, info/exclude and core.excludesFile counted: exit 0 ignored, 1 not
 * ignored, 128 not in a work tree. Git missing, a slow git or any other answer gives no warning:
 * this check never stops a server from starting.
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';

/**
 * The warning for each of `files` that git would offer to commit; [] when none. The checks run
 * at once and off the event loop (a git start costs tens of milliseconds of a busy machine, and
 * the server is already answering).
 */
export async function unignoredKeyWarnings(files: readonly string[]): Promise<string[]> {
  const answers = await Promise.all(files.map(gitWouldAdd));
  const exposed = files.filter((_, i) => answers[i]);
  if (exposed.length === 0) return [];
  return [
    `${listed(exposed)} ${exposed.length === 1 ? 'is a private key' : 'are private keys'} inside a git work tree that does not ignore ${exposed.length === 1 ? 'it' : 'them'}: add ${listed(exposed.map((f) => basename(f)))} (or *.pem) to .gitignore before \`git add\`.`,
  ];
}

/** Whether `git check-ignore` says `file` is in a work tree that does not ignore it. */
const gitWouldAdd = (file: string): Promise<boolean> =>
  new Promise((resolve) => {
    execFile(
      'git',
      ['check-ignore', '-q', '--', basename(file)],
      { cwd: dirname(file), timeout: 5000 },
      (err) => resolve((err as { code?: unknown } | null)?.code === 1),
    );
  });

/** "a", "a and b", "a, b and c". */
const listed = (items: readonly string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
