/**
 * `cards serve`: resolve the settings (serve-settings.ts), start the server (src/server), print
 * where it listens, and on SIGINT/SIGTERM stop it: stop accepting, finish requests in flight,
 * fold the journal into the store file, release the lock and exit 0. Every rule lives in
 * src/registry, every route in src/http, the store's lock and keys in src/server.
 */
import { createRequestLogger } from '../../http/request-log.js';
import { describeStore } from '../../server/open-store.js';
import { startServing } from '../../server/start.js';
import type { CommandContext } from '../context.js';
import { resolveServeSettings, serverOptions, type ServeFlags } from '../serve-settings.js';
import { VERSION } from '../version.js';

const count = (n: number): string => `${n} card${n === 1 ? '' : 's'}`;

/** The `serve` command: start, print, wait for SIGINT/SIGTERM, stop cleanly. */
export async function serve(ctx: CommandContext, flags: ServeFlags): Promise<void> {
  const settings = resolveServeSettings(ctx, flags);
  const logger = createRequestLogger({
    format: settings.logFormat.value,
    quiet: settings.quiet.value,
  });
  const options = serverOptions(settings, ctx.cwd, VERSION);
  const running = await startServing(options, logger);
  const { profile } = options;
  const out = (line: string): unknown => ctx.stdout.write(`${line}\n`);
  out(`listening on ${running.url}`);
  out(`store: ${describeStore(running.store)} (${count(await running.registry.count())})`);
  out(
    `profile: ${profile.name} (Authorization: ${profile.scheme} <token>; signer "${profile.signer}"; header ${profile.supersededHeader}; codes as ${profile.codeType}s)`,
  );
  out(`service key: ${running.serviceKey.key.publicKey.toBase64()}`);
  if (running.store.engine === 'postgres') out(`keys: service key ${running.serviceKeyFrom}`);
  if (running.adminToken) {
    out(`admin token: ${running.adminToken.token}`);
    out(
      running.loopbackOpen
        ? `page: ${running.url}/ (listening on loopback only: the page and /_cards/ need no token)`
        : `page: ${running.url}/ (not loopback only: the page and /_cards/ need the admin token)`,
    );
  }
  out(`tokens: ${running.tokenKeys}`);

  // A second signal more than a second after the first exits at once (the journal keeps every
  // acknowledged card); closer ones are echoes (npm and `timeout` forward signals to the group).
  let stoppedAt = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    if (Date.now() - stoppedAt < 1000) return;
    ctx.stderr.write(`${name} again: exiting now; the journal keeps every acknowledged card.\n`);
    process.exit(130);
  };
  let first: (name: NodeJS.Signals) => void = () => undefined;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    first = resolve;
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
  stoppedAt = Date.now();
  process.off('SIGINT', first);
  process.off('SIGTERM', first);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  ctx.stderr.write(`${signal}: finishing requests in flight and flushing the store…\n`);
  // onSignal stays: a late echo of the signal must not kill the process while it exits.
  await running.close();
  out(`stopped: ${count(running.store.stats().cards)} in ${describeStore(running.store)}`);
}
