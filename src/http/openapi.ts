/**
 * The OpenAPI 3.1 document of GET /openapi.json, generated from the one route table
 * (src/core/routes.ts), the error table (src/core/errors.ts) and the schemas and per-route
 * errors of openapi-schemas.ts, so it cannot drift from what the server serves: every spelling
 * of every route, request and response bodies, the Error object with the codes each route can
 * answer with (by HTTP status), the superseded header, both authorization schemes.
 */
import { WIRE_ERRORS, type WireCode, type WireError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { WireProfile } from '../core/profile.js';
import { ROUTES, routePaths, type RouteName, type RouteSpec } from '../core/routes.js';
import { JOURNAL_FILTERS } from './journal-query.js';
import { errorsOf, ref, SCHEMAS, type Schema } from './openapi-schemas.js';

const jsonContent = (schema: Schema): Schema => ({ 'application/json': { schema } });

interface Success {
  readonly status: number;
  readonly content: Schema;
  readonly description: string;
}

const text = (type: string, description: string): Success => ({
  status: 200,
  content: { [type]: { schema: { type: 'string' } } },
  description,
});
const json = (schema: Schema, description: string, status = 200): Success => ({
  status,
  content: jsonContent(schema),
  description,
});

const SUCCESS: Record<RouteName, Success> = {
  createCard: json(ref('Card'), 'The stored card, with the service signature.', 201),
  getCard: json(ref('Card'), 'The card (revoked ones too).'),
  searchCards: json({ type: 'array', items: ref('Card') }, 'Every card of the live chains.'),
  revokeCard: json(ref('Card'), 'The stored revoking card.'),
  revokeCardById: json(ref('Card'), 'The revoking card the service built and signed.'),
  health: json(ref('Health'), 'The server is up.'),
  keyknoxV1Pull: json(ref('KeyknoxV1'), 'The blob; the hash in the Keyknox hash header.'),
  keyknoxV1Push: json(ref('KeyknoxV1'), 'The stored blob; its new hash in the header.'),
  keyknoxV1Reset: json(ref('KeyknoxV1'), 'The emptied blob; its new hash in the header.'),
  keyknoxV2Push: json(ref('KeyknoxV2Entry'), 'The stored entry; its new hash in the header.'),
  keyknoxV2Pull: json(ref('KeyknoxV2Entry'), 'The entry (empty when absent); its hash.'),
  keyknoxV2Keys: json({ type: 'array', items: { type: 'string' } }, 'The keys readable.'),
  keyknoxV2Reset: json(ref('KeyknoxV2Entry'), 'The entry as the reset left it.'),
  pythiaBrainkey: json(ref('PythiaSeed'), 'The seed (a GT element, base64).'),
  pythiaPassword: json(ref('PythiaTransform'), 'The transformed password, and its proof.'),
  adminInfo: json(ref('AdminInfo'), 'What the page needs to know about the server.'),
  adminCards: json(ref('CardPage'), 'A page of cards in insertion order.'),
  adminIdentities: json(ref('IdentityPage'), 'A page of identities in order.'),
  adminIdentity: json(ref('IdentityHistory'), 'Every chain of the identity, oldest first.'),
  adminKeyknox: json(ref('KeyknoxPage'), 'A page of Keyknox blobs, then entries, in order.'),
  adminExport: text('application/x-ndjson', 'One stored card record per line.'),
  adminImport: json(ref('ImportResult'), 'How many records were stored.'),
  adminReset: json(ref('ResetResult'), 'The registry is empty.'),
  adminRequests: json(ref('RequestJournal'), 'The last requests, newest first.'),
  adminFaults: json(ref('FaultList'), 'The fault rules in force.'),
  adminFaultsAdd: json(ref('FaultList'), 'The rules added, with their ids.', 201),
  adminFaultsClear: json(ref('FaultsCleared'), 'How many rules were removed.'),
  metrics: text('text/plain', 'Prometheus text format 0.0.4.'),
  page: text('text/html', 'The page.'),
  pageAsset: {
    status: 200,
    content: {
      'text/javascript': { schema: { type: 'string' } },
      'text/css': { schema: { type: 'string' } },
      'text/html': { schema: { type: 'string' } },
    },
    description: 'A script, a style sheet or a page.',
  },
  openapi: json({ type: 'object' }, 'This document.'),
  docs: text('text/html', 'This document, readable.'),
  logCheckpoint: text('text/plain', 'The signed checkpoint (C2SP tlog-checkpoint, signed note).'),
  logTile: {
    status: 200,
    content: {
      'application/octet-stream': { schema: { type: 'string' } },
      'text/plain': { schema: { type: 'string' } },
    },
    description:
      "A hash tile (32-byte hashes) or an entry bundle (uint16-length-prefixed entries); a reset's log's checkpoint (text).",
  },
  logProof: text('text/plain', 'The inclusion proof and checkpoint (c2sp.org/tlog-proof@v1).'),
};

const REQUEST_BODY: Partial<Record<RouteName, Schema>> = {
  createCard: { required: true, content: jsonContent(ref('RawCard')) },
  searchCards: { required: true, content: jsonContent(ref('SearchQuery')) },
  revokeCard: { required: true, content: jsonContent(ref('RawCard')) },
  revokeCardById: {
    required: false,
    content: jsonContent({ type: 'object', maxProperties: 0 }),
  },
  adminImport: {
    required: true,
    content: { 'application/x-ndjson': { schema: { type: 'string' } } },
  },
  adminReset: { required: true, content: jsonContent(ref('ResetRequest')) },
  adminFaultsAdd: {
    required: true,
    content: jsonContent({
      oneOf: [
        ref('FaultRule'),
        { type: 'array', items: ref('FaultRule') },
        { type: 'object', properties: { faults: { type: 'array', items: ref('FaultRule') } } },
      ],
    }),
  },
  keyknoxV1Push: { required: true, content: jsonContent(ref('KeyknoxV1Push')) },
  keyknoxV2Push: { required: true, content: jsonContent(ref('KeyknoxV2Push')) },
  keyknoxV2Pull: { required: true, content: jsonContent(ref('KeyknoxV2Address')) },
  keyknoxV2Keys: { required: true, content: jsonContent(ref('KeyknoxV2Address')) },
  keyknoxV2Reset: { required: true, content: jsonContent(ref('KeyknoxV2Address')) },
  pythiaBrainkey: { required: true, content: jsonContent(ref('PythiaBrainkeyRequest')) },
  pythiaPassword: { required: true, content: jsonContent(ref('PythiaPasswordRequest')) },
};

const query = (name: string, description: string, schema: Schema = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const limit = query(
  'limit',
  `Page size (default 100). A page also holds at most ${LIMITS.adminPageBytes / 1024 / 1024} MiB of rows as JSON, and at least one row: fewer than limit rows while next_cursor is not null.`,
  {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
  },
);

const QUERY: Partial<Record<RouteName, Schema[]>> = {
  adminCards: [
    limit,
    query('cursor', 'next_cursor of the previous page.'),
    query('prefix', 'Only cards whose id starts with these hex digits, in id order.'),
  ],
  adminIdentities: [
    limit,
    query('cursor', 'next_cursor of the previous page.'),
    query('prefix', 'Only identities starting with this.'),
  ],
  adminKeyknox: [limit, query('cursor', 'next_cursor of the previous page.')],
  adminIdentity: [
    query(
      'form',
      'json: the identity segment is the identity as a JSON string, quotes included (for "." ' +
        'and "..", which URL parsers remove, and a string with a lone surrogate, which has no ' +
        'UTF-8 form).',
      { enum: ['json'] },
    ),
  ],
  adminImport: [
    query('append', 'true: add to a non-empty registry.', { enum: ['true', 'false'] }),
    query('replace', 'true: empty the registry first (a reset and an import in one).', {
      enum: ['true', 'false'],
    }),
  ],
  adminRequests: [
    query('limit', 'How many (default 100; at most the journal size).', {
      type: 'integer',
      minimum: 1,
    }),
    ...Object.entries(JOURNAL_FILTERS).map(([name, [description, pattern]]) =>
      query(name, `${name === 'all' ? 'Every entry kept' : 'A filter'}: ${description}.`, {
        type: 'string',
        ...(pattern !== undefined && { pattern }),
      }),
    ),
  ],
};

/** `/card/v5/:id` → `/card/v5/{id}`; the page's `/_page/*` → `/_page/{asset}`. */
const openApiPath = (path: string): string =>
  path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{asset}');

/** The statuses a code is answered with, from the error table. */
const statusesOf = (code: WireCode): number[] => {
  const info: WireError = WIRE_ERRORS[code];
  return info.alsoStatus === undefined ? [info.status] : [info.status, info.alsoStatus];
};

function errorResponses(profile: WireProfile, codes: readonly WireCode[]): Schema {
  const byStatus = new Map<number, WireCode[]>();
  for (const code of codes)
    for (const status of statusesOf(code))
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  const responses: Schema = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const wires = list.map((code) =>
      profile.codeType === 'number' ? WIRE_ERRORS[code].wire : String(WIRE_ERRORS[code].wire),
    );
    responses[String(status)] = {
      description: list.map((code) => `${WIRE_ERRORS[code].wire} ${code}`).join(', '),
      content: jsonContent({
        allOf: [ref('Error'), { properties: { code: { enum: wires } } }],
      }),
    };
  }
  return responses;
}

function operation(route: RouteSpec, profile: WireProfile, spelling: number): Schema {
  const success = SUCCESS[route.name];
  const params = [...route.path.matchAll(/:([A-Za-z]+)|\*$/g)].map((match) => ({
    name: match[1] ?? 'asset',
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const headers =
    route.name === 'getCard'
      ? {
          [profile.supersededHeader]: {
            description: 'Spec 4.2: "true" when another card names this one as previous card.',
            schema: { const: 'true' },
          },
        }
      : undefined;
  return {
    operationId: spelling === 0 ? route.name : `${route.name}${spelling}`,
    tags: [route.tag],
    summary: route.summary,
    ...(route.spec && {
      description: /^\d/.test(route.spec)
        ? `Cards Service spec section ${route.spec}.`
        : `${route.spec}.`,
    }),
    ...(params.length + (QUERY[route.name]?.length ?? 0) > 0 && {
      parameters: [...params, ...(QUERY[route.name] ?? [])],
    }),
    ...(REQUEST_BODY[route.name] && { requestBody: REQUEST_BODY[route.name] }),
    security:
      route.auth === 'card'
        ? [{ cardToken: [] }]
        : route.auth === 'admin'
          ? [{ adminToken: [] }, {}]
          : [],
    responses: {
      [String(success.status)]: {
        description: success.description,
        content: success.content,
        ...(headers && { headers }),
      },
      ...errorResponses(profile, errorsOf(route.name)),
    },
  };
}

/** A route's success answer: its media types, each with its schema (`$ref`s into SCHEMAS). */
export const answerContentOf = (name: RouteName): Record<string, { schema: Schema }> =>
  SUCCESS[name].content as Record<string, { schema: Schema }>;

export function buildOpenApi(profile: WireProfile, routes: readonly RouteSpec[] = ROUTES): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes)
    routePaths(route).forEach((path, spelling) => {
      const item = (paths[openApiPath(path)] ??= {});
      item[route.method.toLowerCase()] = operation(route, profile, spelling);
    });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cards Service (cards serve)',
      version: '5',
      description:
        'The Cards API in its three spellings, the admin API (/_cards/…), the page and the ' +
        'transparency log (/log/…). ' +
        'Any unknown path answers 404 ROUTE_NOT_FOUND (10002) and a known path with another ' +
        'method 405 METHOD_NOT_ALLOWED (10003), both as the Error object. Admin routes need ' +
        'no token when the server listens on loopback only.',
    },
    tags: [
      { name: 'cards', description: 'The Cards API (spec section 4).' },
      { name: 'e3kit', description: "e3kit's Keyknox v1, Keyknox v2 and Pythia." },
      { name: 'admin', description: 'See and manage the registry.' },
      { name: 'page', description: 'The page and this document.' },
      { name: 'log', description: 'The transparency log (C2SP tlog-tiles), public.' },
    ],
    paths,
    components: {
      schemas: {
        ...SCHEMAS,
        Error: {
          type: 'object',
          description: `Spec 2.5. code: ${profile.codeType === 'number' ? 'a number' : 'a string of digits'} (profile ${profile.name}).`,
          required: ['code', 'message'],
          properties: {
            code: profile.codeType === 'number' ? { type: 'integer' } : { type: 'string' },
            message: { type: 'string' },
          },
          additionalProperties: false,
        },
      },
      securitySchemes: {
        cardToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: `"${profile.scheme} <token>": an EdDSA JWT or a VEDS512 token (spec 5).`,
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin token printed by cards serve ("admin token: …").',
        },
      },
    },
  };
}
