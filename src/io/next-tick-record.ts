/**
 * One of node's `process.nextTick` records, held for the life of a serving process.
 *
 * node builds each record as an object literal whose first keys are computed (its async id
 * symbols), and V8 keeps the definitions of such a literal's keys on its fast path only while
 * every record it has built has had the same hidden classes (maps). Maps no live object uses
 * are freed by a major garbage collection; when one runs at a moment no record is queued (start-up
 * and the idle time after it run several), the next record gets new maps and V8 defines that
 * literal's keys through the runtime for the rest of the process: ~265 ns a `nextTick` instead
 * of ~32 ns on the project's machine, and node's HTTP server calls it about ten times a request.
 * Whether that happens depends on when the collector runs, so identical processes would serve
 * at two speeds. A record that stays alive keeps its maps alive, and every process on the fast path.
 */
import { executionAsyncResource } from 'node:async_hooks';

const held: object[] = [];

/** Holds the next `process.nextTick` record (call it first thing in a process that serves). */
export function holdNextTickRecord(): void {
  // Inside a nextTick callback the execution's resource is that callback's record.
  if (held.length === 0) process.nextTick(() => held.push(executionAsyncResource()));
}
