/**
 * The admin token of `cards serve` (issue 15): `--admin-token` / CARDS_ADMIN_TOKEN when given,
 * otherwise made on first start and kept beside the store (`cards.admin-token`, mode 0600,
 * fsync'ed, never overwritten) and read on every start after, so the CLI on the same machine
 * finds it through --db like the app key. On PostgreSQL (issue 14) it is kept in the database
 * beside the service and app keys (cards_keys, name "admin-token"), the first server to start
 * making it, so every server on the database takes the same one. Also: whether a listen
 * address is loopback only.
 */
import { randomBytes } from 'node:crypto';
import { chmod, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CardsError } from '../core/errors.js';
import { generateAdminToken } from '../http/admin-auth.js';
import { fsyncDir } from '../io/fs-durable.js';
import { fileHome } from './file-home.js';

export interface AdminToken {
  readonly token: string;
  /** The file it is kept in; undefined when it came from --admin-token. */
  readonly path?: string;
  readonly created: boolean;
  /** Where it came from, for the banner: "--admin-token", "file …", "the database (…)". */
  readonly from: string;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

/** `./data/cards.json` → `./data/cards.admin-token` (beside the store's other companions). */
export const adminTokenPath = (db: string, cwd = process.cwd()): string =>
  fileHome(db, cwd).adminToken;

const TOKEN_TEXT = /^[\x21-\x7e]{16,512}$/;

/** Reads the token file; undefined when there is none. */
export async function readAdminTokenFile(path: string): Promise<AdminToken | undefined> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!TOKEN_TEXT.test(text))
    throw new CardsError(
      'CONFIG_INVALID',
      `${path} does not hold an admin token (16-512 printable characters).`,
      { hint: `Remove ${path} to have a new one made, or pass --admin-token.` },
    );
  const { mode } = await stat(path);
  const warning =
    (mode & 0o077) !== 0
      ? `${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`
      : undefined;
  return { token: text, path, created: false, from: `file ${path}`, ...(warning && { warning }) };
}

/** A secret kept in the store's database: the one there, or `make()`'s, stored first wins. */
export type KeepSecret = (make: () => string) => Promise<{ value: string; created: boolean }>;

export const ADMIN_TOKEN_NAME = 'admin-token';

export async function resolveAdminToken(options: {
  readonly given?: string;
  /** Where it is kept; none (a store with no home on disk): `kept`, else made for this run. */
  readonly path: string | undefined;
  /** Keeps it in the database (PostgreSQL), when there is no file. */
  readonly kept?: KeepSecret;
}): Promise<AdminToken> {
  if (options.given !== undefined) {
    if (!TOKEN_TEXT.test(options.given))
      throw new CardsError(
        'USAGE',
        '--admin-token must be 16 to 512 printable characters without spaces.',
      );
    return { token: options.given, created: false, from: '--admin-token' };
  }
  if (options.path === undefined && options.kept) {
    const kept = await options.kept(() => generateAdminToken(randomBytes(32)));
    if (!TOKEN_TEXT.test(kept.value))
      throw new CardsError(
        'CONFIG_INVALID',
        `The database holds no admin token under "${ADMIN_TOKEN_NAME}" (cards_keys): 16-512 printable characters expected.`,
        { hint: `Delete that row to have a new one made, or pass --admin-token.` },
      );
    return {
      token: kept.value,
      created: kept.created,
      from: `the database (cards_keys, name "${ADMIN_TOKEN_NAME}"; ${kept.created ? 'made by this start' : 'made by an earlier start'})`,
    };
  }
  if (options.path === undefined)
    return { token: generateAdminToken(randomBytes(32)), created: true, from: 'made for this run' };
  const known = await readAdminTokenFile(options.path);
  if (known) return known;
  const token = generateAdminToken(randomBytes(32));
  let handle;
  try {
    handle = await open(options.path, 'wx', 0o600);
  } catch (err) {
    // Another process made it between our read and our create: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return (await readAdminTokenFile(options.path)) as AdminToken;
    throw err;
  }
  try {
    await handle.writeFile(`${token}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(options.path, 0o600);
  await fsyncDir(dirname(options.path));
  return { token, path: options.path, created: true, from: `file ${options.path}` };
}

/** The host listens on loopback addresses only (127.0.0.0/8, ::1, localhost). */
export const isLoopbackHost = (host: string): boolean =>
  /^127(?:\.\d{1,3}){3}$/.test(host) || ['::1', '[::1]', 'localhost'].includes(host.toLowerCase());
