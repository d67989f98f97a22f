/**
 * `cards serve`'s flags, layered like every command's (value-sources.ts), into the options the
 * server starts with (src/server/start.ts), with the checks that span flags: --memory keeps
 * nothing on disk, --witness and --witness-key pair up, the private key file is never
 * CARDS_SERVICE_KEY (the public key `inspect` checks cards against), and the files written
 * later (--ready-file, --export-on-exit) have a folder to go in.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CardsError } from '../../../core/errors.js';
import { parseFaultRules, type FaultRule } from '../../../core/fault-rule.js';
import { PROFILES, type ProfileName } from '../../../core/profile.js';
import { inFile } from '../../../io/key-files.js';
import { parseThrottle } from '../../../server/pythia-setup.js';
import type { ServerOptions } from '../../../server/start.js';
import type { GlobalFlags } from '../../command.js';
import type { CommandContext } from '../../context.js';
import { isInlinePublicKey } from '../../inputs.js';
import { refuseMissingFolder } from '../../ready-file.js';
import { storeTargetOf } from '../../settings.js';

/** serve's flags as layered (commander's camelCase names; each declared in index.ts). */
export interface ServeFlags extends GlobalFlags {
  host: string;
  port: number;
  db: string;
  store?: string;
  serviceKey?: string;
  jwtKey?: string[];
  poolSize: number;
  statementTimeout: number;
  compat: ProfileName;
  appId?: string;
  appKeyId?: string;
  /** commander's `--no-cors`: false when given. */
  cors: boolean;
  maxConnections: number;
  requestTimeout: number;
  clockSkew: number;
  compactBytes: number;
  logOrigin?: string;
  logInterval: number;
  /** commander's `--no-log`: false when given. */
  log: boolean;
  /** Begin a new log on this start. */
  newLog?: boolean;
  witness?: string[];
  witnessKey?: string[];
  quiet?: boolean;
  logFormat: 'text' | 'json';
  memory?: boolean;
  seed?: string;
  faults?: string;
  acceptAnyToken?: boolean;
  requireAdminToken?: boolean;
  import?: string;
  exportOnExit?: string;
  journalSize: number;
  readyFile?: string;
  adminToken?: string;
  /** commander's `--no-admin`: false when given. */
  admin: boolean;
  pythiaVersions: number;
  pythiaThrottle: string;
  pythiaThreads?: number;
}

const usage = (message: string): CardsError => new CardsError('USAGE', message);

/**
 * --service-key or CARDS_SERVICE_KEY_FILE: the private key file serve signs with. Not
 * CARDS_SERVICE_KEY, the public key `inspect` checks against: a private key file there is
 * refused rather than ignored, or serve would sign with a key of its own.
 */
function refuseServiceKeyMixUp(ctx: CommandContext, flags: ServeFlags): void {
  const publicKey = ctx.env.CARDS_SERVICE_KEY;
  if (flags.serviceKey !== undefined || !publicKey || isInlinePublicKey(publicKey)) return;
  let text = '';
  try {
    text = readFileSync(resolve(ctx.cwd, publicKey), 'utf8').trim();
  } catch {
    return;
  }
  if (/PRIVATE KEY|^MC4CAQAw/.test(text))
    throw usage(
      `CARDS_SERVICE_KEY names a private key file (${publicKey}); serve's private key file is CARDS_SERVICE_KEY_FILE (CARDS_SERVICE_KEY is the public key \`inspect\` checks cards against).`,
    );
}

/** `--witness URL` and `--witness-key VKEY`, repeatable, paired in the order given. */
function pairWitnesses(flags: ServeFlags): { url: string; vkey: string }[] {
  const urls = flags.witness ?? [];
  const keys = flags.witnessKey ?? [];
  if (urls.length !== keys.length)
    throw usage(
      `give one --witness-key VKEY for each --witness URL (got ${urls.length} URLs and ${keys.length} keys).`,
    );
  return urls.map((url, i) => {
    if (!/^https?:\/\//.test(url)) throw usage(`--witness "${url}": expected an http(s) URL.`);
    return { url, vkey: keys[i] as string };
  });
}

/** `--faults FILE`: its rules, every one checked before the server starts. */
function readFaultFile(file: string): FaultRule[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw usage(`--faults ${file}: ${(err as NodeJS.ErrnoException).code ?? 'cannot be read'}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CardsError('FAULT_INVALID', `--faults ${file}: not JSON.`);
  }
  try {
    return parseFaultRules(json);
  } catch (err) {
    throw inFile(`--faults ${file}`, err);
  }
}

function throttleOf(text: string) {
  const setting = parseThrottle(text);
  if (setting === undefined)
    throw usage(`--pythia-throttle: expected off or <burst>/<ms> (e.g. 2/500), got "${text}".`);
  return setting;
}

/** The values the server starts with; paths resolved against the working folder. */
export function serverOptions(
  ctx: CommandContext,
  flags: ServeFlags,
  version: string,
): ServerOptions {
  const given = (key: 'db' | 'store'): boolean => flags.sources?.[key] === 'flag';
  if (flags.memory && (given('db') || given('store')))
    throw usage('--memory keeps nothing on disk; it cannot be given with --db or --store.');
  refuseServiceKeyMixUp(ctx, flags);
  refuseMissingFolder(ctx, '--ready-file', flags.readyFile);
  refuseMissingFolder(ctx, '--export-on-exit', flags.exportOnExit);
  const witnesses = pairWitnesses(flags);
  // CARDS_JWT_KEY is one value; readTrustedKeys splits a comma-separated list.
  return {
    host: flags.host,
    port: flags.port,
    store: storeTargetOf(ctx, flags),
    memory: flags.memory === true,
    poolSize: flags.poolSize,
    statementTimeoutMs: flags.statementTimeout,
    admin: flags.admin,
    ...(flags.adminToken !== undefined && { adminToken: flags.adminToken }),
    ...(flags.serviceKey !== undefined && { serviceKey: resolve(ctx.cwd, flags.serviceKey) }),
    jwtKeys: flags.jwtKey ?? [],
    profile: PROFILES[flags.compat],
    ...(flags.appId !== undefined && { appId: flags.appId }),
    ...(flags.appKeyId !== undefined && { appKeyId: flags.appKeyId }),
    cors: flags.cors,
    maxConnections: flags.maxConnections,
    requestTimeoutSeconds: flags.requestTimeout,
    clockSkewSeconds: flags.clockSkew,
    compactBytes: flags.compactBytes,
    version,
    journalSize: flags.journalSize,
    ...(flags.acceptAnyToken === true && { acceptAnyToken: true }),
    ...(flags.requireAdminToken === true && { requireAdminToken: true }),
    ...(flags.import !== undefined && { importDump: resolve(ctx.cwd, flags.import) }),
    ...(flags.exportOnExit !== undefined && { exportOnExit: resolve(ctx.cwd, flags.exportOnExit) }),
    ...(flags.faults !== undefined && { faults: readFaultFile(resolve(ctx.cwd, flags.faults)) }),
    pythia: {
      versions: flags.pythiaVersions,
      throttle: throttleOf(flags.pythiaThrottle),
      ...(flags.pythiaThreads !== undefined && { threads: flags.pythiaThreads }),
    },
    ...(flags.log && {
      log: {
        ...(flags.logOrigin !== undefined && { origin: flags.logOrigin }),
        intervalMs: flags.logInterval,
        witnesses,
        ...(flags.newLog === true && { newLog: true }),
      },
    }),
  };
}
