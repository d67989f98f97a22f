/**
 * `cards witness serve`: a C2SP tlog-witness v1.0.0 witness for the logs whose verifier keys
 * are given with --log, started through its home (src/server/witness-home.ts); it says where it
 * listens and stops on SIGINT/SIGTERM.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../../core/errors.js';
import { terminalJson } from '../../../core/terminal-text.js';
import { holdNextTickRecord } from '../../../io/next-tick-record.js';
import { outliveOutput } from '../../../io/standard-streams.js';
import { isValidKeyName } from '../../../log/note-keys.js';
import { startWitness, type WitnessOptions } from '../../../server/witness-home.js';
import type { GlobalFlags } from '../../command.js';
import type { CommandContext } from '../../context.js';
import { refuseMissingFolder, removeLeftReadyFile, writeReadyFile } from '../../ready-file.js';

/** The flags of `cards witness serve` (each declared in index.ts). */
export type WitnessServeOptions = Omit<WitnessOptions, 'logs'> &
  GlobalFlags & { readonly log: string[]; readonly readyFile?: string };

export async function witnessServe(
  ctx: CommandContext,
  options: WitnessServeOptions,
): Promise<undefined> {
  if (!isValidKeyName(options.name))
    throw new CardsError('USAGE', `--name "${options.name}": no spaces or "+", not empty.`);
  const dir = resolve(ctx.cwd, options.dir);
  const { name, host, port, log: logs } = options;
  refuseMissingFolder(ctx, '--ready-file', options.readyFile);
  removeLeftReadyFile(ctx.cwd, options.readyFile);
  holdNextTickRecord();
  outliveOutput();
  const witness = await startWitness({ dir, name, logs, host, port });
  // Listening for the signals before the lines that say it runs: a script that reads them and
  // stops the witness at once (a test, a supervisor) must find it ready to stop cleanly.
  const stopped = new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  const out = (line: string): unknown => ctx.stdout.write(`${line}\n`);
  const { url, vkey, logsSeen, origins } = witness;
  const info = { url, vkey, pid: process.pid, state: dir, logsSeen, logs: origins };
  let removeReadyFile: (() => void) | undefined;
  try {
    if (options.readyFile !== undefined)
      removeReadyFile = writeReadyFile(ctx.cwd, options.readyFile, info);
  } catch (err) {
    await witness.close();
    throw err;
  }
  // With --json, one JSON start-up line, as `cards serve --json` prints.
  if (options.json) out(terminalJson(info));
  else {
    out(`listening on ${witness.url}`);
    out(`witness key: ${witness.vkey}`);
    out(`state: ${options.dir} (${witness.logsSeen} logs seen)`);
    out(`logs: ${witness.origins.join(', ')}`);
  }
  const signal = await stopped;
  ctx.stderr.write(`${signal}: stopping\n`);
  await witness.close();
  removeReadyFile?.();
  return undefined;
}
