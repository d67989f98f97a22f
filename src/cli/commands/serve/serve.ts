/**
 * `cards serve`: start the server with the options of its flags (settings.ts), print where it
 * listens, and on SIGINT/SIGTERM stop it: stop accepting, finish requests in flight, fold the
 * journal into the store file, release the lock and exit 0. Every rule lives in src/registry,
 * every route in src/http, the store's lock and keys in src/server. --seed runs before it
 * listens (seed.ts); --json and --ready-file tell scripts where it listens (start-info.ts).
 */
import { terminalJson } from '../../../core/terminal-text.js';
import { holdNextTickRecord } from '../../../io/next-tick-record.js';
import { outliveOutput } from '../../../io/standard-streams.js';
import { isStoreUrl } from '../../../server/defaults.js';
import { unignoredKeyWarnings } from '../../../server/git-exposure.js';
import { createRequestLogger, startServing } from '../../../server/start.js';
import type { CommandContext } from '../../context.js';
import { isFileSystemError } from '../../report-error.js';
import type { SeedResult } from '../../seeding.js';
import { plural } from '../../text.js';
import { VERSION } from '../../version.js';
import { serverOptions, type ServeFlags } from './settings.js';
import { removeLeftReadyFile, writeReadyFile } from '../../ready-file.js';
import { bannerLines, pythiaLines, startInfo } from './start-info.js';

/** The `serve` command: start, print, wait for SIGINT/SIGTERM, stop cleanly. */
export async function serve(ctx: CommandContext, flags: ServeFlags): Promise<undefined> {
  holdNextTickRecord();
  const options = serverOptions(ctx, flags, VERSION);
  removeLeftReadyFile(ctx.cwd, flags.readyFile);
  outliveOutput();
  const logger = createRequestLogger({ format: flags.logFormat, quiet: flags.quiet === true });
  const seedFile = flags.seed;
  let seeded: SeedResult | undefined;
  const running = await startServing(
    options,
    logger,
    seedFile === undefined
      ? undefined
      : async (registry) => {
          // Loaded by a start that seeds (seed.ts and the seeding it runs), by no other.
          const { seedRegistry } = await import('./seed.js');
          seeded = await seedRegistry(
            ctx,
            registry,
            seedFile,
            options.profile.signer,
            options.memory ? undefined : options.store,
          );
        },
  ).catch(async (err: unknown) => {
    // A JSON store that cannot be opened: the next step for that refusal, naming its flag.
    if (!options.memory && !isStoreUrl(options.store) && isFileSystemError(err)) {
      const { storePathHint } = await import('./store-path-hint.js');
      err.hint ??= storePathHint(
        err,
        options.store,
        flags.store === undefined ? '--db' : '--store',
      );
    }
    throw err;
  });
  for (const warning of await unignoredKeyWarnings(running.createdKeyFiles)) logger.warn(warning);
  const { profile } = options;
  const out = (line: string): unknown => ctx.stdout.write(`${line}\n`);
  // A script's one line (and the ready file) waits for Pythia's keys; the banner does not.
  const scripted = flags.json === true || flags.readyFile !== undefined;
  const pythia = scripted ? await running.pythia : undefined;
  const info = startInfo(running, {
    cards: await running.registry.count(),
    profile,
    version: VERSION,
    ...(pythia && { pythia }),
    ...(seedFile !== undefined && seeded && { seed: [seedFile, seeded] as [string, SeedResult] }),
  });
  // A second signal more than a second after the first exits at once (the journal keeps every
  // acknowledged card); closer ones are echoes (npm and `timeout` forward signals to the group).
  let stoppedAt = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    if (Date.now() - stoppedAt < 1000) return;
    ctx.stderr.write(`${name} again: exiting now; the journal keeps every acknowledged card.\n`);
    process.exit(130);
  };
  let first: (name: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    first = resolve;
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
  // Only now the start is announced: writing to a pipe can wake the reader at once, and a
  // script that stops the server as soon as it reads the banner (or the ready file) must
  // find the handlers set.
  let removeReadyFile: (() => void) | undefined;
  try {
    if (flags.readyFile !== undefined)
      removeReadyFile = writeReadyFile(ctx.cwd, flags.readyFile, info);
  } catch (err) {
    process.off('SIGINT', first);
    process.off('SIGTERM', first);
    await running.close();
    throw err;
  }
  if (flags.json) out(terminalJson(info));
  else {
    for (const line of bannerLines(info, profile)) out(line);
    running.pythia.then(
      (ready) => pythiaLines(ready).forEach(out),
      () => undefined, // told on stderr by the server
    );
  }
  const signal = await stopped;
  stoppedAt = Date.now();
  process.off('SIGINT', first);
  process.off('SIGTERM', first);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  ctx.stderr.write(`${signal}: finishing requests in flight and flushing the store…\n`);
  // onSignal stays: a late echo of the signal must not kill the process while it exits.
  removeReadyFile?.();
  await running.close();
  const cards = running.store.stats().cards; // the store is closed: its last count
  if (flags.json) out(terminalJson({ stopped: true, cards, store: running.store.location }));
  else out(`stopped: ${plural(cards, 'card')} in ${running.store.location}`);
  return undefined;
}
