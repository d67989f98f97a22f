/**
 * The rest of e3kit's backend as a fastify plugin, beside the card routes at the same base URL
 * and with the same token: Keyknox v1 (one blob per identity), Keyknox v2 (entries with
 * readers) and Pythia (brainkeys, password transforms). The rules are the registry's
 * (src/registry/keyknox-*.ts, pythia.ts); each handler reads the caller from the token, calls
 * them and sends their answer. Data is scoped by the token's app and identity; nothing in a
 * body names the caller.
 *
 * Every Keyknox success carries the entry's hash in `<Scheme>-Keyknox-Hash` (the profile's
 * scheme word: `Virgil-Keyknox-Hash` in --compat virgil), the empty answers included; a push
 * names the hash it replaces in `<Scheme>-Keyknox-Previous-Hash`. Bodies: Keyknox up to 1 MiB
 * (an e3kit group of 100 members is about 110 KB), Pythia up to 4 KiB (182 bytes seen).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { encodeBase64 } from '../core/encoding.js';
import { LIMITS } from '../core/limits.js';
import { CardsError } from '../core/errors.js';
import { keyknoxHeaders, type WireProfile } from '../core/profile.js';
import { parseStrictJson, StrictJsonError } from '../core/strict-json.js';
import {
  parsePreviousHash,
  parseV1Push,
  parseV2Keys,
  parseV2Pull,
  parseV2Push,
  parseV2Reset,
} from '../registry/keyknox-input.js';
import type { KeyknoxV1, KeyknoxV1Answer } from '../registry/keyknox-v1.js';
import type { KeyknoxV2, KeyknoxV2Answer } from '../registry/keyknox-v2.js';
import type { Pythia } from '../registry/pythia.js';
import type { Authenticator, Caller } from './auth.js';
import { addRoutes, sendJson, type Guard, type Handler, type RouteNameOf } from './route-group.js';

export interface E3kitRoutesDeps {
  readonly profile: WireProfile;
  readonly auth: Authenticator;
  readonly keyknoxV1: KeyknoxV1;
  readonly keyknoxV2: KeyknoxV2;
  /** Ready once its worker threads are (a request waits for it). */
  readonly pythia: Promise<Pythia>;
}

const KEYKNOX_BODY_LIMIT = LIMITS.keyknoxPushMax;
const PYTHIA_BODY_LIMIT = 4 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The app the card token names ('' for a token that names none), on e3kit routes. */
    app: string;
  }
}

/** Who asked, from the card token: Pythia's caller, and the address of its Keyknox v1 blob. */
const callerOf = (request: FastifyRequest): Caller => ({
  app: request.app,
  identity: request.identity,
});

function handlers(deps: E3kitRoutesDeps): Record<RouteNameOf<'e3kit'>, Handler> {
  const { keyknoxV1, keyknoxV2, pythia } = deps;
  const headers = keyknoxHeaders(deps.profile);
  const previousOf = (request: FastifyRequest): string | undefined => {
    const value = request.headers[headers.previous.toLowerCase()];
    return parsePreviousHash(Array.isArray(value) ? value.join(', ') : value);
  };
  const v1 = (reply: FastifyReply, a: KeyknoxV1Answer): FastifyReply =>
    sendJson(reply.header(headers.hash, a.hash), {
      meta: encodeBase64(a.meta),
      value: encodeBase64(a.value),
      version: a.version,
    });
  const v2 = (reply: FastifyReply, a: KeyknoxV2Answer): FastifyReply =>
    sendJson(reply.header(headers.hash, a.hash), {
      owner: a.owner,
      root: a.root,
      path: a.path,
      key: a.key,
      identities: a.identities,
      meta: encodeBase64(a.meta),
      value: encodeBase64(a.value),
    });
  return {
    keyknoxV1Pull: async (request, reply) => v1(reply, await keyknoxV1.pull(callerOf(request))),
    keyknoxV1Push: async (request, reply) =>
      v1(
        reply,
        await keyknoxV1.push(callerOf(request), parseV1Push(request.body), previousOf(request)),
      ),
    keyknoxV1Reset: async (request, reply) => v1(reply, await keyknoxV1.reset(callerOf(request))),
    keyknoxV2Push: async (request, reply) =>
      v2(
        reply,
        await keyknoxV2.push(
          request.app,
          request.identity,
          parseV2Push(request.body),
          previousOf(request),
        ),
      ),
    keyknoxV2Pull: async (request, reply) =>
      v2(reply, await keyknoxV2.pull(request.app, request.identity, parseV2Pull(request.body))),
    keyknoxV2Keys: async (request, reply) =>
      sendJson(
        reply,
        await keyknoxV2.keys(request.app, request.identity, parseV2Keys(request.body)),
      ),
    keyknoxV2Reset: async (request, reply) =>
      v2(reply, await keyknoxV2.reset(request.app, request.identity, parseV2Reset(request.body))),
    pythiaBrainkey: async (request, reply) =>
      sendJson(reply, await (await pythia).brainkey(callerOf(request), request.body)),
    pythiaPassword: async (request, reply) =>
      sendJson(reply, await (await pythia).password(callerOf(request), request.body)),
  };
}

const LIMIT_TEXT = { [KEYKNOX_BODY_LIMIT]: '1 MiB', [PYTHIA_BODY_LIMIT]: '4 KiB' };

export const e3kitRoutes =
  (deps: E3kitRoutesDeps): FastifyPluginAsync =>
  async (scope) => {
    scope.decorateRequest('app', '');
    const authenticate: Guard = async (request: FastifyRequest) => {
      const caller = await deps.auth.caller(request.headers.authorization, request.headers);
      request.identity = caller.identity;
      request.app = caller.app;
    };
    // The Keyknox v1 client resets with no body but its HTTP library's default Content-Type
    // (form encoding): an empty body of any type is no body; any other non-JSON body is 415.
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
      if (body === '') done(null, undefined);
      else done(new CardsError('UNSUPPORTED_MEDIA_TYPE'), undefined);
    });
    // e3kit's JSON bodies are read one way, as snapshots are: a name twice in an object, which
    // JSON.parse would read last-wins, is BODY_PARSE (RFC 7493 section 2.3; no stock client
    // sends one). Each field's own rule judges its text (keyknox-input.ts).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      (_request, body, done) => {
        const text = body as string;
        if (text.trim() === '') return done(null, undefined);
        try {
          done(null, parseStrictJson(text, { anyText: true }).value);
        } catch (err) {
          const problem = err instanceof StrictJsonError ? err.problem : 'syntax';
          const why =
            problem === 'duplicate'
              ? `holds ${(err as Error).message}`
              : problem === 'depth'
                ? `is ${(err as Error).message}`
                : 'is not valid JSON';
          done(new CardsError('BODY_PARSE', `Request body ${why}.`), undefined);
        }
      },
    );
    // A body over this scope's limits is named with its own limit, not the card routes'.
    scope.setErrorHandler((err, request) => {
      if ((err as { code?: unknown }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err;
      const limit = request.routeOptions.bodyLimit ?? KEYKNOX_BODY_LIMIT;
      throw new CardsError(
        'BODY_TOO_LARGE',
        `Request body is too large (limit ${LIMIT_TEXT[limit] ?? `${String(limit)} bytes`}).`,
      );
    });
    addRoutes(scope, {
      handlers: handlers(deps),
      guards: { card: authenticate },
      bodyLimits: {
        keyknoxV1Push: KEYKNOX_BODY_LIMIT,
        keyknoxV1Reset: KEYKNOX_BODY_LIMIT,
        keyknoxV2Push: KEYKNOX_BODY_LIMIT,
        keyknoxV2Pull: KEYKNOX_BODY_LIMIT,
        keyknoxV2Keys: KEYKNOX_BODY_LIMIT,
        keyknoxV2Reset: KEYKNOX_BODY_LIMIT,
        pythiaBrainkey: PYTHIA_BODY_LIMIT,
        pythiaPassword: PYTHIA_BODY_LIMIT,
      },
    });
  };
