/**
 * Whether a process runs, by its pid (kill(2) with signal 0, POSIX): EPERM means it runs as
 * another user. A pid alone cannot tell a process from a later one given the same pid; callers
 * that must (store/json/lock.ts) check its start time too.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
