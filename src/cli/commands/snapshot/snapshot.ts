/**
 * `cards snapshot save|restore|list`: a running server's registry kept under a name in the
 * keystore home (`snapshots/NAME.ndjson`, what GET /_cards/export writes), and put back as one
 * admin operation (POST /_cards/import?replace=true: a reset and an import in one request).
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { boundedBody, sizeName } from '../../../client/bounded-body.js';
import { CardsError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import { replaceFileSync } from '../../../io/fs-durable.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { dumpCounter, type DumpCounts } from '../../dump-counts.js';
import { resolveServer } from '../../settings.js';

export interface SnapshotInfo {
  name: string;
  file: string;
  cards: number;
  /** e3kit's Keyknox v1 blobs and v2 entries, the dump's lines ahead of the cards. */
  keyknox: number;
  /** ISO 8601. */
  saved: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function fileOf(ctx: CommandContext, name: string): string {
  if (!NAME.test(name))
    throw new CardsError(
      'USAGE',
      `snapshot name "${name}": letters, digits, ".", "_" and "-", at most 64, not starting with a dot.`,
    );
  return join(ctx.home, 'snapshots', `${name}.ndjson`);
}

/** The cards and the Keyknox records a dump holds. */
function countsIn(dump: Uint8Array | string): DumpCounts {
  const counter = dumpCounter();
  counter.add(dump);
  return counter.counts();
}

export async function saveSnapshot(
  ctx: CommandContext,
  name: string,
  flags: AdminFlags & { force?: boolean },
): Promise<SnapshotInfo & { url: string }> {
  const file = fileOf(ctx, name);
  if (existsSync(file) && !flags.force)
    throw new CardsError('FILE_EXISTS', `snapshot "${name}" exists already.`, {
      hint: '--force replaces it, or save under another name',
    });
  const admin = adminClient(ctx, flags);
  const response = await admin.request('GET', 'adminExport');
  // Held in memory to be written whole: read up to the card routes' bound, as a string holds it.
  const bytes = await boundedBody(response, LIMITS.answerMax);
  if (bytes === undefined)
    throw new CardsError(
      'NOT_A_SERVICE',
      `${admin.url} answered its export with more than ${sizeName(LIMITS.answerMax)}, more than a snapshot keeps.`,
      { hint: '`cards export --out FILE` keeps a dump of any size' },
    );
  const text = bytes.toString('utf8');
  mkdirSync(join(ctx.home, 'snapshots'), { recursive: true, mode: 0o700 });
  replaceFileSync(file, text, 0o600);
  return {
    name,
    file,
    ...countsIn(text),
    saved: statSync(file).mtime.toISOString(),
    url: resolveServer(ctx, flags).url.value,
  };
}

export async function restoreSnapshot(
  ctx: CommandContext,
  name: string,
  flags: AdminFlags & { yes?: boolean },
): Promise<{ name: string; url: string; cards: number }> {
  const file = fileOf(ctx, name);
  if (!existsSync(file))
    throw new CardsError(
      'FILE_NOT_FOUND',
      `No snapshot "${name}" (${file}); \`cards snapshot list\` lists them.`,
    );
  if (!flags.yes)
    throw new CardsError(
      'USAGE',
      `restoring "${name}" replaces every card of the server: pass --yes to confirm.`,
    );
  const answer = await adminClient(ctx, flags).json<{ imported: number; cards: number }>(
    'POST',
    'adminImport',
    {
      query: { replace: 'true' },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      type: 'application/x-ndjson',
    },
  );
  return { name, url: resolveServer(ctx, flags).url.value, cards: answer.cards };
}

export function listSnapshots(ctx: CommandContext): { snapshots: SnapshotInfo[] } {
  const dir = join(ctx.home, 'snapshots');
  const names = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.ndjson'))
        .sort()
    : [];
  return {
    snapshots: names.map((entry) => {
      const file = join(dir, entry);
      return {
        name: entry.slice(0, -'.ndjson'.length),
        file,
        ...countsIn(readFileSync(file)),
        saved: statSync(file).mtime.toISOString(),
      };
    }),
  };
}
