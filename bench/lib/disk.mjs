// The disk's fdatasync latency, measured beside the create runs: a create is acknowledged only
// after its journal line is on disk, so with 16 clients the create rate follows this latency
// as much as the CPU (on a shared virtual disk it varies from minute to minute).
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { median } from './load.mjs';

/** Median ms of `count` appends of `bytes` (about 7 cards) each followed by fdatasync. */
export async function measureFsync(dir, count = 100, bytes = 5_000) {
  const path = join(dir, 'fsync-probe.bin');
  const handle = await open(path, 'a');
  const buffer = Buffer.alloc(bytes, 0x61);
  const times = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await handle.write(buffer);
      await handle.datasync();
      times.push(performance.now() - started);
    }
  } finally {
    await handle.close();
    await rm(path, { force: true });
  }
  return median(times);
}
