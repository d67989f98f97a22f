/**
 * A Pythia worker thread (run by pool.ts through piscina): loads the vendor's WebAssembly once,
 * then computes one job at a time, off the server's event loop.
 */
import { runPythiaJob, type PythiaJob, type PythiaOutcome } from './jobs.js';
import { loadPythia } from './load.js';

const pythia = await loadPythia();

export default function compute(job: PythiaJob): PythiaOutcome<unknown> {
  return runPythiaJob(pythia, job);
}
