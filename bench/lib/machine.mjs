// What else the machine was doing: the 1-minute load average, and the share of CPU time the
// hypervisor gave to other guests (steal, from /proc/stat), which a load average never shows.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Counters of the `cpu` line of /proc/stat (Linux; zeros elsewhere). */
function cpuCounters() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    return fields.slice(1).map(Number);
  } catch {
    return [];
  }
}

/** Starts watching; `stop()` returns the load averages seen and the steal share (0…1). */
export function watchMachine() {
  const before = cpuCounters();
  const loadBefore = loadavg()[0];
  return {
    stop() {
      const after = cpuCounters();
      const delta = after.map((value, i) => value - (before[i] ?? 0));
      const total = delta.reduce((sum, value) => sum + value, 0);
      // Fields: user nice system idle iowait irq softirq steal …
      const steal = total > 0 ? (delta[7] ?? 0) / total : 0;
      return { loadBefore, loadAfter: loadavg()[0], steal };
    },
  };
}
