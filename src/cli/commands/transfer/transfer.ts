/**
 * `cards export`, `cards import` and `cards db migrate`: a registry moved as NDJSON, one stored
 * record a line in insertion order, between a store (a JSON store file or PostgreSQL, its engine
 * opened through src/server) or a running server's admin API, and stdout, stdin or a file; and
 * a PostgreSQL schema brought up to date ahead of a deploy. Summaries go to stderr, so stdout
 * is the dump alone; under --json the summary is the result document.
 */
import { createReadStream, existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { asClause, CardsError, reworded } from '../../../core/errors.js';
import { escapeTerminal } from '../../../core/terminal-text.js';
import { createFileStream } from '../../../io/fs-durable.js';
import { dumpLines } from '../../../io/lines.js';
import { dumpCounter } from '../../dump-counts.js';
import { isStoreUrl } from '../../../server/defaults.js';
import { exportStore, importStore, migrateStore } from '../../../server/store-transfer.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext, OutStream } from '../../context.js';
import { ownerUrl } from '../../local-server.js';
import { resolveServer, setting, storeTargetOf } from '../../settings.js';
import { keyknoxNote, plural } from '../../text.js';
import { signedElsewhere, watchFirstCard } from './moved-cards.js';

export interface TransferOptions extends AdminFlags {
  /** A PostgreSQL URL or a JSON store file (--store, CARDS_STORE). */
  store?: string;
  /** export: a new file to write instead of stdout. */
  out?: string;
  /** import: add to a registry that holds cards already. */
  append?: boolean;
}

export interface ExportResult {
  cards: number;
  /** e3kit's Keyknox records, the dump's lines ahead of the cards. */
  keyknox: number;
  from: string;
  out: string;
}

export interface ImportResult {
  imported: number;
  /** With --append: cards the registry holds already, stored identically, skipped. */
  skipped?: number;
  into: string;
  /** Through a server: the cards its registry holds now. */
  cards?: number;
}

/**
 * Where export and import go: a store when --store names one; else a server when a URL is set
 * (flag, environment or profile); else a store when --db (not its default) or DATABASE_URL
 * names one; else the local server at the default URL.
 */
function throughServer(ctx: CommandContext, options: TransferOptions): boolean {
  if (options.store !== undefined) return false;
  if (setting(options, 'url')?.source !== 'default') return true;
  return setting(options, 'db')?.source === 'default' && !ctx.env.DATABASE_URL;
}

const warn = (ctx: CommandContext) => (message: string) =>
  ctx.stderr.write(`warning: ${message}\n`);

/** stdout as a stream with backpressure (the process's), or one that writes through it. */
const writable = (out: OutStream): Writable =>
  out instanceof Writable
    ? out
    : new Writable({ write: (chunk, _encoding, done) => (out.write(String(chunk)), done()) });

/**
 * stdout on a terminal: the dump as a text view shows card data, every control a line holds
 * escaped (a server's answer is anyone's) and the line breaks between records kept; ended
 * after the dump, which flushes a character split at its end, and never ends stdout itself.
 */
function terminalView(out: OutStream): Writable {
  const decoder = new StringDecoder('utf8');
  const show = (text: string): void => {
    if (text !== '') out.write(text.split('\n').map(escapeTerminal).join('\n'));
  };
  return new Writable({
    write: (chunk: Buffer, _encoding, done) => (show(decoder.write(chunk)), done()),
    final: (done) => (show(decoder.end()), done()),
  });
}

export async function exportCommand(
  ctx: CommandContext,
  options: TransferOptions,
): Promise<ExportResult | undefined> {
  const file = options.out === undefined ? undefined : resolve(ctx.cwd, options.out);
  if (file === undefined) {
    // A pipe or a file gets the exact bytes; a terminal, the dump with its controls escaped.
    const result =
      ctx.stdout.isTTY === true
        ? await exportTo(ctx, options, terminalView(ctx.stdout), true)
        : await exportTo(ctx, options, writable(ctx.stdout), false);
    ctx.stderr.write(`${summaryLine(result)}\n`);
    return undefined;
  }
  if (existsSync(file)) throw exists(options.out!);
  // --out: the dump takes the name only once it is whole; a refusal, Ctrl-C or kill leaves none.
  const made = createFileStream(file);
  const stop = (): void => void made.stream.destroy(interrupted(options.out!));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await exportTo(ctx, options, made.stream, true);
    await made.keep().catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EEXIST' ? exists(options.out!) : err;
    });
    ctx.stderr.write(`${summaryLine(result)} to ${file}\n`);
    return { ...result, out: file };
  } catch (err) {
    made.discard();
    throw err;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

const exists = (out: string): CardsError =>
  new CardsError('FILE_EXISTS', `${out} exists already; export writes a new file.`, {
    hint: 'name another --out file, or remove that one first',
  });

const interrupted = (out: string): CardsError =>
  new CardsError('CANCELLED', `export: interrupted; ${out} was not written.`);

const summaryLine = (r: Omit<ExportResult, 'out'>): string =>
  `exported ${plural(r.cards, 'card')}${keyknoxNote(r)} from ${r.from}`;

/**
 * A store a server holds is exported (or imported) through that server's admin API: the hint
 * names its address when the store's owner file gives it.
 */
function inUse(err: unknown, ctx: CommandContext, store: string): unknown {
  if (!(err instanceof CardsError) || err.code !== 'STORE_LOCKED') return err;
  const url = isStoreUrl(store) ? undefined : ownerUrl(store, ctx.cwd);
  return reworded(err, err.message, {
    hint: `go through that server instead: --url ${url ?? 'http://HOST:PORT'} (its admin API reads and writes the store it holds)`,
  });
}

/** The dump to `out`, from a server's admin API or a store; `end`: `out` is ended after it. */
async function exportTo(
  ctx: CommandContext,
  options: TransferOptions,
  out: Writable,
  end: boolean,
): Promise<Omit<ExportResult, 'out'>> {
  const server = throughServer(ctx, options);
  const target = server ? undefined : storeTargetOf(ctx, options);
  if (target !== undefined && !isStoreUrl(target) && !existsSync(target))
    throw new CardsError('FILE_NOT_FOUND', `No store file ${target}.`);
  const counter = dumpCounter();
  let from: string;
  if (target === undefined) {
    const response = await adminClient(ctx, options).request('GET', 'adminExport');
    // Counted beside the pipe rather than through a mapped stream: a stopped export destroys
    // this stream itself, which cancels the answer and closes the connection.
    const answer = Readable.fromWeb(response.body as never).on('data', (chunk: Buffer) =>
      counter.add(chunk),
    );
    await pipeline(answer, out, { end });
    from = resolveServer(ctx, options).url.value;
  } else {
    const write = (chunk: string): Promise<void> =>
      new Promise((done, fail) => {
        counter.add(chunk);
        if (out.destroyed) return fail(out.errored ?? new Error('output closed'));
        if (out.write(chunk)) return done();
        out.once('drain', done);
        out.once('error', fail);
      });
    ({ store: from } = await exportStore(target, write, warn(ctx)).catch((err: unknown) => {
      throw inUse(err, ctx, target);
    }));
    if (end)
      await new Promise<void>((done, fail) =>
        out.end((err?: Error | null) => (err ? fail(err) : done())),
      );
  }
  return { ...counter.counts(), from };
}

export async function importCommand(
  ctx: CommandContext,
  options: TransferOptions,
  file = '-',
): Promise<ImportResult> {
  const path = file === '-' ? undefined : resolve(ctx.cwd, file);
  // A dump is never typed: stdin on a terminal means the file was forgotten, not a wait.
  if (path === undefined && ctx.stdin.isTTY)
    throw new CardsError('USAGE', 'import needs a dump FILE, or a dump piped on stdin.', {
      hint: 'for example `cards import dump.ndjson` or `cards export --url A | cards import - --url B`',
    });
  if (path !== undefined && !existsSync(path))
    throw new CardsError('FILE_NOT_FOUND', `${file} does not exist.`);
  const input = path === undefined ? Readable.from(ctx.stdin) : createReadStream(path);
  let result: ImportResult;
  if (throughServer(ctx, options)) {
    const client = adminClient(ctx, options);
    const held = () => registryCount(client);
    const before = await held();
    const firstCard = watchFirstCard(input);
    const body = boundedBody(input);
    const answer = await client
      .json<Required<Omit<ImportResult, 'into'>>>('POST', 'adminImport', {
        query: { append: options.append ? 'true' : undefined },
        body: Readable.toWeb(body.stream) as ReadableStream<Uint8Array>,
        type: 'application/x-ndjson',
      })
      .catch(async (err: unknown) => {
        throw await whatWasStored(body.refused() ?? err, before, await held());
      });
    result = { ...answer, into: resolveServer(ctx, options).url.value };
    await warnSignedElsewhere(ctx, client, firstCard());
  } else {
    // Lines are read from when the import starts reading them: a line read before is lost.
    const lines = {
      [Symbol.asyncIterator]: () =>
        dumpLines(input, 'import what `cards export` wrote, one record per line'),
    };
    const target = storeTargetOf(ctx, options);
    const done = await importStore(target, lines, options.append === true, warn(ctx)).catch(
      (err: unknown) => {
        throw inUse(err, ctx, target);
      },
    );
    result = {
      imported: done.cards,
      ...(options.append === true && { skipped: done.skipped ?? 0 }),
      into: done.store,
    };
  }
  const skipped = result.skipped ? `, skipped ${result.skipped} stored already` : '';
  const holds = result.cards === undefined ? '' : ` (the registry holds ${result.cards})`;
  ctx.stderr.write(
    `imported ${plural(result.imported, 'card')} into ${result.into}${skipped}${holds}\n`,
  );
  return result;
}

/** Bytes of the dump sent in one piece at most. */
const BODY_PIECE = 64 * 1024;

/**
 * The dump as sent to a server, its lines bounded as the server bounds them (io/lines.ts): a
 * line too long is refused here, naming it, and the request ends there. The server would refuse
 * it all the same, but its 413 closes the connection while the client is still sending, so the
 * client could read a broken pipe instead of the refusal.
 */
function boundedBody(input: Readable): { stream: Readable; refused(): CardsError | undefined } {
  let refusal: CardsError | undefined;
  async function* pieces(): AsyncGenerator<Buffer> {
    let piece = '';
    try {
      for await (const line of dumpLines(
        input,
        'import what `cards export` wrote, one record per line',
      )) {
        piece += `${line}\n`;
        if (piece.length >= BODY_PIECE) {
          yield Buffer.from(piece);
          piece = '';
        }
      }
    } catch (err) {
      if (err instanceof CardsError) refusal = err;
      throw err;
    }
    if (piece !== '') yield Buffer.from(piece);
  }
  return { stream: Readable.from(pieces(), { objectMode: false }), refused: () => refusal };
}

/** The cards a server's registry holds, or undefined when it does not say. */
async function registryCount(client: ReturnType<typeof adminClient>): Promise<number | undefined> {
  const info = await client.json<{ cards?: unknown }>('GET', 'adminInfo').catch(() => undefined);
  return typeof info?.cards === 'number' ? info.cards : undefined;
}

/**
 * A failed import through a server, with what its registry holds after it: a request cut off
 * (a connection lost, a proxy's timeout) may leave the cards before the cut stored, and only
 * the server can say how many. Run again with --append, the import skips those (stored
 * identically) and stores the rest.
 */
/**
 * The failures of an import that carry no answer of the import itself: a server's refusal of a
 * line says what was stored in its own message.
 */
const CUT_OFF: ReadonlySet<string> = new Set([
  'UNREACHABLE',
  'NOT_A_SERVICE',
  'REQUEST_TIMEOUT',
  'IMPORT_LINE_TOO_LONG',
]);

function whatWasStored(
  err: unknown,
  before: number | undefined,
  after: number | undefined,
): unknown {
  if (!(err instanceof CardsError) || !CUT_OFF.has(err.code)) return err;
  const rerun = `${err.code === 'IMPORT_LINE_TOO_LONG' ? 'fix the line, then ' : ''}run the same import again with --append to store the rest (cards stored already are skipped)`;
  const holds =
    after === undefined
      ? `Some of the dump's cards may be stored: once the server answers, ${rerun}.`
      : `The registry holds ${plural(after, 'card')}${before === undefined ? '' : ` (${before} before this import)`}: ${rerun}.`;
  return reworded(err, `${asClause(err.message)}. ${holds}`);
}

/** Says when the cards came from a registry whose service key the server does not hold. */
async function warnSignedElsewhere(
  ctx: CommandContext,
  client: ReturnType<typeof adminClient>,
  line: string | undefined,
): Promise<void> {
  if (line === undefined) return;
  const info = await client
    .json<{ signer?: string; service_key?: string }>('GET', 'adminInfo')
    .catch(() => undefined);
  if (!info?.signer || !info.service_key) return;
  if (!(await signedElsewhere(line, info.signer, info.service_key))) return;
  warn(ctx)(
    `these cards carry the service signature of another registry; nobody can verify it with this server's key, so \`cards inspect\` and stock clients will refuse it. Start this server with that registry's key (cards serve --service-key FILE; see docs/serve.md, "Moving a registry and its service key").`,
  );
}

export async function migrateCommand(
  ctx: CommandContext,
  options: TransferOptions,
): Promise<{ from: number; to: number; store: string }> {
  return migrateStore(storeTargetOf(ctx, options), warn(ctx));
}
