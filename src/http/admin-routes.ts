/**
 * The admin API's handlers, bound by route name like the card routes: query strings
 * parsed here (QUERY_INVALID on a bad one), everything else asked of registry/admin.ts, the
 * request journal and the metrics.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CardsError } from '../core/errors.js';
import { identityOfSegment, JSON_FORM } from '../core/identity-segment.js';
import { LIMITS } from '../core/limits.js';
import type { WireProfile } from '../core/profile.js';
import { MAX_PARAM_LENGTH, routePath, type AdminRouteName } from '../core/routes.js';
import { boundedLines, LineTooLongError } from '../io/lines.js';
import type { Admin } from '../registry/admin.js';
import type { CardLog } from '../registry/card-log.js';
import type { Registry } from '../registry/registry.js';
import type { AdminGuard } from './admin-auth.js';
import type { FastRead, ReadAnswer } from './fast-path.js';
import type { Metrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { servePageAsset, servePageFile } from './page.js';
import type { RequestJournal } from './request-journal.js';

export const NDJSON_TYPE = 'application/x-ndjson';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface AdminDeps {
  readonly admin: Admin;
  readonly registry: Registry;
  readonly guard: AdminGuard;
  readonly journal: RequestJournal;
  readonly metrics: Metrics;
  readonly profile: WireProfile;
  readonly version: string;
  /** The service's public key, base64 DER SPKI (the page checks the service signature). */
  readonly serviceKey: string;
  /** The transparency log (its current origin and verifier key change on reset). */
  readonly log?: CardLog | undefined;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1000;

type Query = Partial<Record<string, string | string[]>>;

function one(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value))
    throw new CardsError('QUERY_INVALID', `Query parameter ${name} is given more than once.`);
  return value;
}

/** `limit`: an integer from 1 to `max`; the default when absent. */
export function parseLimit(query: Query, max = LIMIT_MAX, fallback = LIMIT_DEFAULT): number {
  const text = one(query, 'limit');
  if (text === undefined || text === '') return fallback;
  const n = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= max))
    throw new CardsError(
      'QUERY_INVALID',
      `Query parameter limit must be an integer from 1 to ${max}, got "${text}".`,
    );
  return n;
}

function parseSeqCursor(query: Query): number | undefined {
  const text = one(query, 'cursor');
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text))
    throw new CardsError(
      'QUERY_INVALID',
      `Query parameter cursor must be the next_cursor of a previous page, got "${text}".`,
    );
  return Number(text);
}

/** The identity of the history route: the segment itself, or its JSON string (`form=json`). */
function identityParam(params: { identity: string }, query: Query): string {
  const form = one(query, 'form');
  const identity = identityOfSegment(params.identity, form);
  if (identity === undefined)
    throw new CardsError(
      'QUERY_INVALID',
      form === JSON_FORM
        ? 'With form=json the identity segment must be a JSON string, quotes included.'
        : `Query parameter form must be ${JSON_FORM}, got "${form}".`,
    );
  return identity;
}

const json = (reply: FastifyReply, body: unknown, status = 200): FastifyReply =>
  reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));

/** An identity's history (its JSON), as fastify's handler and the fast path send it. */
const historyAnswer = (json: Buffer, identity?: string): ReadAnswer => ({
  type: JSON_TYPE,
  body: json,
  ...(identity !== undefined && { identity }),
});

export function adminHandlers(deps: AdminDeps): Record<AdminRouteName, Handler> {
  const { admin } = deps;
  let openApi: string | undefined;
  return {
    adminInfo: async (_request, reply) =>
      json(reply, {
        version: deps.version,
        profile: deps.profile.name,
        signer: deps.profile.signer,
        service_key: deps.serviceKey,
        cards: await deps.registry.count(),
        admin_auth: deps.guard.loopbackOpen ? 'loopback-open' : 'token',
        log: deps.log
          ? { origin: deps.log.origin, vkey: deps.log.vkey, size: deps.log.size }
          : null,
      }),
    adminCards: async (request, reply) => {
      const query = request.query as Query;
      const page = await admin.cards(parseSeqCursor(query), parseLimit(query));
      return json(reply, { cards: page.items, next_cursor: page.next });
    },
    adminIdentities: async (request, reply) => {
      const query = request.query as Query;
      const prefix = one(query, 'prefix');
      const after = one(query, 'cursor');
      const page = await admin.identities({
        limit: parseLimit(query),
        ...(prefix !== undefined && prefix !== '' && { prefix }),
        ...(after !== undefined && after !== '' && { after }),
      });
      return json(reply, {
        identities: page.items.map((item) => ({
          identity: item.identity,
          cards: item.cards,
          live_chains: item.liveChains,
          revoked_chains: item.revokedChains,
        })),
        next_cursor: page.next,
      });
    },
    adminIdentity: async (request, reply) => {
      const { type, body } = historyAnswer(
        await admin.historyJson(
          identityParam(request.params as { identity: string }, request.query as Query),
        ),
      );
      return reply.type(type).send(body);
    },
    adminExport: async (_request, reply) =>
      reply
        .type(NDJSON_TYPE)
        .header('content-disposition', 'attachment; filename="cards.ndjson"')
        .send(Readable.from(admin.export())),
    adminImport: async (request, reply) => {
      const append = one(request.query as Query, 'append');
      if (append !== undefined && append !== 'true' && append !== 'false')
        throw new CardsError(
          'QUERY_INVALID',
          `Query parameter append must be true or false, got "${append}".`,
        );
      const body = request.body;
      if (!(body instanceof Readable))
        throw new CardsError(
          'UNSUPPORTED_MEDIA_TYPE',
          'POST /_cards/import takes what GET /_cards/export wrote: one card record per line, sent as application/x-ndjson.',
        );
      const result = await admin.import(importLines(body), append === 'true');
      return json(reply, {
        imported: result.imported,
        skipped: result.skipped,
        cards: await deps.registry.count(),
      });
    },
    adminReset: async (request, reply) => {
      await admin.reset(request.body);
      return json(reply, { cards: await deps.registry.count() });
    },
    adminRequests: async (request, reply) =>
      json(reply, {
        requests: deps.journal.last(parseLimit(request.query as Query, deps.journal.size)),
        total: deps.journal.total,
      }),
    metrics: async (_request, reply) =>
      reply
        .type('text/plain; version=0.0.4; charset=utf-8')
        .send(await deps.metrics.render(deps.registry.store)),
    page: async (_request, reply) => servePageFile(reply, 'index.html'),
    pageAsset: async (request, reply) =>
      servePageAsset(reply, (request.params as { '*': string })['*']),
    openapi: async (_request, reply) =>
      reply.type(JSON_TYPE).send((openApi ??= JSON.stringify(buildOpenApi(deps.profile)))),
    docs: async (_request, reply) => servePageFile(reply, 'docs.html'),
  };
}

/** An import body's lines, one bounded: a line longer than any card record is refused (413). */
async function* importLines(body: Readable): AsyncGenerator<string> {
  try {
    yield* boundedLines(body, LIMITS.importLineMax);
  } catch (err) {
    if (!(err instanceof LineTooLongError)) throw err;
    throw new CardsError(
      'IMPORT_LINE_TOO_LONG',
      `Import ${err.message}: no card record is; send what GET /_cards/export wrote, one record per line.`,
    );
  }
}

const HISTORY = routePath('adminIdentity', { identity: '' });

/**
 * The admin API's reads for the fast path: an identity's history while it is kept and current
 * (Admin.keptHistoryJson), to a request the guard admits. The identity is the path segment
 * decoded as fastify decodes a parameter; anything else (a malformed escape, a segment too long
 * or with a slash, a refused token) is passed on, and fastify answers it.
 */
export const adminFastReads = (deps: Pick<AdminDeps, 'admin' | 'guard'>): FastRead[] => [
  {
    route: 'adminIdentity',
    path: HISTORY,
    answer: (url, request) => {
      const segment = url.slice(HISTORY.length);
      if (segment === '' || segment.length > MAX_PARAM_LENGTH || segment.includes('/')) return;
      const who = deps.guard.admit(request.headers);
      const json = deps.admin.keptHistoryJson(decodeURIComponent(segment));
      return json && historyAnswer(json, who);
    },
  },
];
