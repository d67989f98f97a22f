/**
 * The admin API, the page and the OpenAPI document as a fastify plugin, bound by route name
 * like the card routes: everything is asked of registry/admin.ts, the request journal and the
 * metrics. Query strings are checked by fastify against each route's schema before the handler
 * runs; a refused one is QUERY_INVALID, saying what the parameter must be.
 */
import { Readable } from 'node:stream';
import type { FastifyError, FastifyPluginAsync, FastifySchema } from 'fastify';
import type { CardsPage, KeyknoxPage } from '../core/admin-rows.js';
import { CardsError } from '../core/errors.js';
import { identityOfSegment, JSON_FORM } from '../core/identity-segment.js';
import { LIMITS } from '../core/limits.js';
import type { WireProfile } from '../core/profile.js';
import { dumpLines } from '../io/lines.js';
import { epochPrefix } from '../log/log-epochs.js';
import type { Admin } from '../registry/admin.js';
import type { CardLog } from '../registry/card-log.js';
import type { Pythia } from '../registry/pythia.js';
import type { Registry } from '../registry/registry.js';
import type { AdminGuard } from './admin-auth.js';
import { JSON_TYPE } from './error-reply.js';
import { JOURNAL_FILTERS, journalFilter } from './journal-query.js';
import { faultHandlers } from './fault-routes.js';
import type { FaultSet } from './faults.js';
import type { Metrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { servePageAsset, servePageFile } from './page.js';
import type { RequestJournal } from './request-journal.js';
import { securityHeaders } from './security-headers.js';
import { allowLongBody } from './streamed-bodies.js';
import { addRoutes, sendJson, type Guard, type Handler, type RouteNameOf } from './route-group.js';

const NDJSON_TYPE = 'application/x-ndjson';

export interface AdminDeps {
  readonly admin: Admin;
  readonly registry: Registry;
  readonly guard: AdminGuard;
  readonly journal: RequestJournal;
  readonly faults: FaultSet;
  readonly metrics: Metrics;
  readonly profile: WireProfile;
  readonly version: string;
  /** The service's public key, base64 DER SPKI (the page checks the service signature). */
  readonly serviceKey: string;
  /** The transparency log (its current origin and verifier key change on reset). */
  readonly log?: CardLog | undefined;
  /** Pythia's proof keys, update tokens and counts, when e3kit's routes are served. */
  readonly pythia?: Promise<Pythia> | undefined;
}

const LIMIT_DEFAULT: number = LIMITS.adminPageDefault;
const LIMIT_MAX: number = LIMITS.adminPageMax;

/** A query parameter's schema; `description` is what the refusal says it must be. */
const param = (description: string, pattern?: string) => ({
  type: 'string',
  description,
  ...(pattern !== undefined && { pattern }),
});
type Param = ReturnType<typeof param>;
/** The query string of a route: parameters in the order they are checked. */
const query = (properties: Record<string, Param>): FastifySchema => ({
  querystring: { type: 'object', properties },
});
const limit = (max: number): Param => param(`an integer from 1 to ${max}`, '^\\d{0,7}$');

type Query = Readonly<Record<string, string | undefined>>;

const invalid = (name: string, must: string, value: string): CardsError =>
  new CardsError('QUERY_INVALID', `Query parameter ${name} must be ${must}, got "${value}".`);

/** `limit` (digits, by the schema): from 1 to `max`; `fallback` when absent or empty. */
function limitOf(text: string | undefined, max = LIMIT_MAX, fallback = LIMIT_DEFAULT): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (n >= 1 && n <= max) return n;
  throw invalid('limit', limit(max).description, text);
}

export const adminRoutes =
  (deps: AdminDeps): FastifyPluginAsync =>
  async (scope) => {
    // Every answer of the admin API and the page, refusals included (security-headers.ts).
    scope.addHook('onRequest', securityHeaders);
    const { admin } = deps;
    let openApi: string | undefined;
    // A query string its schema refuses: the first parameter at fault, as its route checks them.
    scope.setErrorHandler((err: FastifyError, request) => {
      const at = err.validation?.[0];
      if (err.validationContext !== 'querystring' || !at) throw err;
      const name = at.instancePath.slice(1);
      const value = (request.query as Record<string, unknown>)[name];
      if (Array.isArray(value))
        throw new CardsError('QUERY_INVALID', `Query parameter ${name} is given more than once.`);
      const { properties } = request.routeOptions.schema?.querystring as {
        properties: Record<string, Param>;
      };
      throw invalid(name, properties[name]?.description ?? 'valid', String(value));
    });
    const handlers: Record<RouteNameOf<'admin' | 'page'>, Handler> = {
      adminInfo: async (_request, reply) => {
        const pythia = await deps.pythia;
        return sendJson(reply, {
          version: deps.version,
          profile: deps.profile.name,
          signer: deps.profile.signer,
          service_key: deps.serviceKey,
          cards: await deps.registry.count(),
          admin_auth: deps.guard.loopbackOpen ? 'loopback-open' : 'token',
          log: deps.log
            ? {
                origin: deps.log.origin,
                vkey: deps.log.vkey,
                size: deps.log.size,
                path: `/log/${epochPrefix(deps.log.writer.epoch)}`,
              }
            : null,
          pythia: pythia
            ? {
                proof_keys: pythia.proofKeys,
                update_tokens: pythia.updateTokens,
                ...pythia.counts,
              }
            : null,
        });
      },
      adminCards: async (request, reply) => {
        const { prefix, cursor, limit } = request.query as Query;
        const given = cursor === undefined || cursor === '' ? undefined : cursor;
        // With a prefix the cards come in id order and the cursor is the last id; without, in
        // insertion order and the cursor is the last seq.
        if (prefix !== undefined && prefix !== '') {
          const page = await admin.cardsWithIdPrefix(prefix.toLowerCase(), given, limitOf(limit));
          return sendJson(reply, { cards: page.items, next_cursor: page.next } satisfies CardsPage);
        }
        if (given !== undefined && !/^\d{1,15}$/.test(given))
          throw invalid('cursor', 'the next_cursor of a previous page', given);
        const page = await admin.cards(
          given === undefined ? undefined : Number(given),
          limitOf(limit),
        );
        return sendJson(reply, { cards: page.items, next_cursor: page.next } satisfies CardsPage);
      },
      adminIdentities: async (request, reply) => {
        const { prefix, cursor, limit } = request.query as Query;
        const page = await admin.identities({
          limit: limitOf(limit),
          ...(prefix !== undefined && prefix !== '' && { prefix }),
          ...(cursor !== undefined && cursor !== '' && { after: cursor }),
        });
        return sendJson(reply, { identities: page.items, next_cursor: page.next });
      },
      adminKeyknox: async (request, reply) => {
        const { cursor, limit } = request.query as Query;
        const page = await admin.keyknox(
          cursor === undefined || cursor === '' ? undefined : cursor,
          limitOf(limit),
        );
        return sendJson(reply, {
          keyknox: page.items,
          next_cursor: page.next,
        } satisfies KeyknoxPage);
      },
      // A kept history is sent before the handler returns (no promise).
      adminIdentity: (request, reply) => {
        const segment = (request.params as { identity: string }).identity;
        const identity = identityOfSegment(segment, (request.query as Query).form);
        if (identity === undefined)
          throw new CardsError(
            'QUERY_INVALID',
            'With form=json the identity segment must be a JSON string, quotes included.',
          );
        const kept = admin.keptHistoryJson(identity);
        if (kept === undefined)
          return admin.historyJson(identity).then((json) => reply.type(JSON_TYPE).send(json));
        reply.type(JSON_TYPE).send(kept);
        return undefined;
      },
      adminExport: async (_request, reply) =>
        reply
          .type(NDJSON_TYPE)
          .header('content-disposition', 'attachment; filename="cards.ndjson"')
          .send(Readable.from(admin.export())),
      adminImport: async (request, reply) => {
        const body = request.body;
        if (!(body instanceof Readable))
          throw new CardsError(
            'UNSUPPORTED_MEDIA_TYPE',
            'POST /_cards/import takes what GET /_cards/export wrote: one card record per line, sent as application/x-ndjson.',
          );
        const { append, replace } = request.query as Query;
        // A dump of any size takes what time it takes to arrive and be stored (streamed-bodies.ts).
        const bounded = allowLongBody(request.raw.socket);
        const result = await admin
          .import(
            dumpLines(body, 'send what GET /_cards/export wrote, one record per line'),
            append === 'true',
            replace === 'true',
          )
          .finally(bounded);
        return sendJson(reply, {
          imported: result.imported,
          skipped: result.skipped,
          keyknox: result.keyknox,
          cards: await deps.registry.count(),
        });
      },
      adminReset: async (request, reply) => {
        await admin.reset(request.body);
        return sendJson(reply, { cards: await deps.registry.count() });
      },
      adminRequests: async (request, reply) => {
        const query = request.query as Query;
        const { size } = deps.journal;
        const limit = query.all === 'true' ? size : limitOf(query.limit, size);
        return sendJson(reply, {
          requests: deps.journal.last(limit, journalFilter(query)),
          total: deps.journal.total,
          size,
        });
      },
      ...faultHandlers(deps.faults),
      metrics: async (_request, reply) =>
        reply
          .type('text/plain; version=0.0.4; charset=utf-8')
          .send(await deps.metrics.render(deps.registry.store, (await deps.pythia)?.counts)),
      page: async (_request, reply) => servePageFile(reply, 'index.html'),
      pageAsset: async (request, reply) =>
        servePageAsset(reply, (request.params as { '*': string })['*']),
      openapi: async (_request, reply) =>
        reply.type(JSON_TYPE).send((openApi ??= JSON.stringify(buildOpenApi(deps.profile)))),
      docs: async (_request, reply) => servePageFile(reply, 'docs.html'),
    };
    const { adminImport, ...rest } = handlers;
    // A callback, not an async function: the guard never waits (no promise per request).
    const guards: { admin: Guard } = {
      admin: (request, _reply, done) => {
        try {
          request.identity = deps.guard.admit(request.headers);
        } catch (err) {
          return done(err as Error);
        }
        done();
      },
    };
    addRoutes(scope, {
      handlers: rest,
      guards,
      schemas: {
        adminCards: query({
          prefix: param('1 to 64 hexadecimal digits', '^[0-9a-fA-F]{0,64}$'),
          cursor: param('the next_cursor of a previous page', '^[0-9a-f]{0,64}$'),
          limit: limit(LIMIT_MAX),
        }),
        adminIdentities: query({
          prefix: param('a string'),
          cursor: param('a string'),
          limit: limit(LIMIT_MAX),
        }),
        adminIdentity: query({ form: param(JSON_FORM, `^${JSON_FORM}$`) }),
        adminKeyknox: query({
          cursor: param('the next_cursor of a previous page', '^[A-Za-z0-9_-]*$'),
          limit: limit(LIMIT_MAX),
        }),
        adminRequests: query({
          limit: limit(deps.journal.size),
          ...Object.fromEntries(
            Object.entries(JOURNAL_FILTERS).map(([name, [description, pattern]]) => [
              name,
              param(description, pattern),
            ]),
          ),
        }),
      },
    });
    // Import takes NDJSON as a stream (any size); only this route parses that type.
    await scope.register(async (importing) => {
      importing.addContentTypeParser(NDJSON_TYPE, (_request, payload, done) => done(null, payload));
      // Any other type, or none: the handler's 415 says what the route takes.
      importing.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      addRoutes(importing, {
        handlers: { adminImport },
        guards,
        schemas: {
          adminImport: query({
            append: param('true or false', '^(true|false)$'),
            replace: param('true or false', '^(true|false)$'),
          }),
        },
      });
    });
  };
