/**
 * What `cards serve` tells its user once it listens: the banner for people, or for scripts that
 * start it on --port 0 one JSON line (--json) and/or a ready file (--ready-file, written by
 * src/cli/ready-file.ts) of the same document.
 */
import type { WireProfile } from '../../../core/profile.js';
import { formatThrottle } from '../../../server/pythia-setup.js';
import type { PythiaInfo } from '../../../server/pythia-setup.js';
import type { RunningServer } from '../../../server/start.js';
import type { SeedResult } from '../../seeding.js';
import { plural } from '../../text.js';

interface StartInfo {
  url: string;
  pid: number;
  /** Base64 DER SPKI, the form clients pin (`inspect --service-key`). */
  serviceKey: string;
  store: string;
  cards: number;
  profile: string;
  version: string;
  tokens: string;
  /** Any well-formed token is accepted unverified (`--accept-any-token`). */
  acceptAnyToken: boolean;
  /** The app key file that mints tokens (`--app-key`); null in memory or with --jwt-key. */
  appKeyFile: string | null;
  /** In memory without --jwt-key: the app key itself (PEM PKCS#8), the only way to mint tokens. */
  appKey?: string;
  /** Where the service key came from (a file, the database, made for this run). */
  keys: string;
  /** The admin API's token and whether the page needs it (null with --no-admin). */
  admin: { token: string; from: string; page: string; loopbackOpen: boolean } | null;
  seeded: {
    file: string;
    created: number;
    revoked: number;
    identities: number;
    /** Every card of the file was in the store already (a restart): nothing created. */
    alreadySeeded: boolean;
  } | null;
  /** The transparency log: origin, verifier key (C2SP vkey), entries, tiles (null: --no-log). */
  log: { origin: string; vkey: string; size: number; tiles: string } | null;
  /**
   * Pythia's proof keys (`PK.<v>.<base64>`), update tokens (`UT.<a>.<b>.<base64>`), threads and
   * throttle; null in the banner's first lines (printed once derived, pythiaLines).
   */
  pythia: {
    proofKeys: readonly string[];
    updateTokens: readonly string[];
    threads: number;
    throttle: string;
  } | null;
}

export function startInfo(
  running: RunningServer,
  extra: {
    cards: number;
    profile: WireProfile;
    version: string;
    seed?: [string, SeedResult];
    pythia?: PythiaInfo;
  },
): StartInfo {
  const { appKey } = running;
  const appKeyFile = running.appKeyFile ?? null;
  const seeded = extra.seed;
  return {
    url: running.url,
    pid: process.pid,
    serviceKey: running.serviceKey.key.publicKey.toBase64(),
    store: running.engine.description,
    cards: extra.cards,
    profile: extra.profile.name,
    version: extra.version,
    tokens: running.tokenKeys,
    acceptAnyToken: running.acceptAnyToken,
    appKeyFile,
    ...(appKey && !running.engine.durable && { appKey: appKey.toPem() }),
    keys: running.serviceKeyFrom,
    admin: running.adminToken
      ? {
          token: running.adminToken.token,
          from: running.adminToken.from,
          page: `${running.url}/`,
          loopbackOpen: running.loopbackOpen,
        }
      : null,
    seeded: seeded
      ? {
          file: seeded[0],
          created: seeded[1].created,
          revoked: seeded[1].revoked,
          identities: Object.keys(seeded[1].identities).length,
          alreadySeeded: seeded[1].alreadySeeded === true,
        }
      : null,
    log: running.log
      ? {
          origin: running.log.origin,
          vkey: running.log.vkey,
          size: running.log.size,
          tiles: running.log.writer.tiles.location,
        }
      : null,
    pythia: extra.pythia ? pythiaOf(extra.pythia) : null,
  };
}

/**
 * The ports browsers refuse to fetch from (the Fetch Standard's "bad port" list, §2.9 "port
 * blocking"): the page and the browser SDKs cannot reach a server there, node's http can.
 */
const BROWSER_BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

const browserBlocked = (url: string): string[] => {
  const { port } = new URL(url);
  return BROWSER_BLOCKED_PORTS.has(Number(port))
    ? [
        `note: browsers refuse port ${port} (the Fetch Standard's blocked ports): the page and browser SDKs cannot reach this server; the CLI and node clients can`,
      ]
    : [];
};

export function bannerLines(info: StartInfo, profile: WireProfile): string[] {
  const { seeded } = info;
  return [
    `listening on ${info.url}`,
    ...browserBlocked(info.url),
    ...(info.acceptAnyToken
      ? [
          'WARNING: --accept-any-token: ANY well-formed token is accepted for its sub, signatures NOT checked. For local development only.',
        ]
      : []),
    `store: ${info.store} (${plural(info.cards, 'card')})`,
    ...(seeded
      ? [
          seeded.alreadySeeded
            ? `already seeded: ${seeded.file} for ${seeded.identities} identities is in the store; nothing created`
            : `seeded: ${plural(seeded.created, 'card')} (${seeded.revoked} revoked) for ${seeded.identities} identities from ${seeded.file}`,
        ]
      : []),
    `profile: ${profile.name} (Authorization: ${profile.scheme} <token>; signer "${profile.signer}"; header ${profile.supersededHeader}; codes as ${profile.codeType}s)`,
    `service key: ${info.serviceKey}`,
    ...(info.keys.startsWith('file') ? [] : [`keys: service key ${info.keys}`]),
    ...(info.admin
      ? [
          `admin token: ${info.admin.token}`,
          // Said unless the operator gave it or it is the usual file beside the store: kept in
          // the database, shared by every server on it, or made for this run only.
          ...(info.admin.from.startsWith('file ') || info.admin.from === '--admin-token'
            ? []
            : [`admin token from: ${info.admin.from}`]),
          info.admin.loopbackOpen
            ? `page: ${info.admin.page} (listening on loopback only: the page and /_cards/ need no token)`
            : `page: ${info.admin.page} (the page and /_cards/ need the admin token)`,
        ]
      : []),
    ...(info.log
      ? [
          `log: ${info.log.origin} (${info.log.size} entries; tiles in ${info.log.tiles})`,
          `log key: ${info.log.vkey}`,
        ]
      : ['log: off (--no-log)']),
    `tokens: ${info.tokens}`,
  ];
}

const pythiaOf = (p: PythiaInfo): NonNullable<StartInfo['pythia']> => ({
  proofKeys: p.proofKeys,
  updateTokens: p.updateTokens,
  threads: p.threads,
  throttle: formatThrottle(p.throttle),
});

/** The banner's Pythia lines, printed once its threads have derived the keys. */
export function pythiaLines(pythia: PythiaInfo): string[] {
  const p = pythiaOf(pythia);
  return [
    ...p.proofKeys.map((key) => `pythia proof key: ${key}`),
    ...p.updateTokens.map((token) => `pythia update token: ${token}`),
    `pythia: ${p.threads} thread(s), brainkey throttle ${p.throttle} (burst/ms per identity)`,
  ];
}
