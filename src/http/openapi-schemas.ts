/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every body the server sends or takes, and the
 * errors each route can answer with. openapi.ts assembles them with the route table; the
 * contract test checks every response of the HTTP suite against them.
 */
import { WIRE_ERRORS, type WireCode } from '../core/errors.js';
import type { RouteName } from '../core/routes.js';

export type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer', minimum: 0 };
const cardId: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
  additionalProperties: false,
});
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const signature = object({ signer: str, signature: str, snapshot: str }, ['snapshot']);
const state: Schema = { enum: ['active', 'superseded', 'revoked', 'revocation'] };
const cardRow = {
  seq: int,
  id: cardId,
  identity: str,
  state,
  previous_card_id: nullable(cardId),
  successor: nullable(cardId),
  revoked_by: nullable(cardId),
};

/** A fault rule (core/fault-rule.ts); every field optional, but a rule needs an action. */
const faultRule: Record<string, Schema> = {
  route: str,
  method: str,
  identity: str,
  probability: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  count: { type: 'integer', minimum: 1 },
  error: { enum: Object.keys(WIRE_ERRORS) },
  status: { const: 503 },
  delay: { type: ['string', 'integer'], description: 'ms: fixed ("50") or a range ("50-200")' },
  drop: { type: 'boolean' },
};

/** A Keyknox v2 push; the entry answered is the same with its owner first. */
const keyknoxV2Push: Record<string, Schema> = {
  root: str,
  path: str,
  key: str,
  identities: { type: 'array', items: str },
  meta: str,
  value: str,
};

export const SCHEMAS: Record<string, Schema> = {
  Card: {
    ...object({ content_snapshot: str, signatures: { type: 'array', items: signature } }),
    description: 'The Card wire object (spec 2.1): the snapshot as stored, every signature.',
  },
  RawCard: {
    type: 'object',
    description: 'A card to store (spec 4.1, 4.4); checked by the service, not by the schema.',
    properties: { content_snapshot: str, signatures: { type: 'array', items: signature } },
  },
  SearchQuery: {
    oneOf: [
      object({ identity: str }),
      object({ identities: { type: 'array', items: str, minItems: 1, maxItems: 50 } }),
    ],
  },
  Health: object({ status: { const: 'ok' }, cards: int, profile: str, version: str }),
  AdminInfo: object({
    version: str,
    profile: str,
    signer: str,
    service_key: str,
    cards: int,
    admin_auth: { enum: ['loopback-open', 'token'] },
    /**
     * The transparency log: its current origin and verifier key (C2SP vkey), its size, and the
     * URL path its checkpoint and tiles are under (C2SP tlog-tiles prefix: `/log/reset-N/`
     * after the Nth reset).
     */
    log: nullable(object({ origin: str, vkey: str, size: int, path: str })),
    /** Pythia: proof keys PK.<v>.…, update tokens UT.<a>.<b>.…, requests answered, throttled. */
    pythia: nullable(
      object({
        proof_keys: { type: 'array', items: str },
        update_tokens: { type: 'array', items: str },
        brainkeys: int,
        passwords: int,
        throttled: int,
      }),
    ),
  }),
  CardRow: object(cardRow),
  CardPage: object({
    cards: { type: 'array', items: ref('CardRow') },
    next_cursor: nullable(str),
  }),
  IdentitySummary: object({
    identity: str,
    cards: int,
    live_chains: int,
    revoked_chains: int,
  }),
  IdentityPage: object({
    identities: { type: 'array', items: ref('IdentitySummary') },
    next_cursor: nullable(str),
  }),
  KeyknoxRow: object({
    api: { enum: ['v1', 'v2'] },
    app: str,
    owner: str,
    root: nullable(str),
    path: nullable(str),
    key: nullable(str),
    readers: { type: 'array', items: str },
    size: int,
    version: nullable({ type: 'string', pattern: '^[1-9][0-9]*\\.0$' }),
    hash: str,
    created: nullable({ type: 'string', format: 'date-time' }),
    updated: nullable({ type: 'string', format: 'date-time' }),
  }),
  KeyknoxPage: object({
    keyknox: { type: 'array', items: ref('KeyknoxRow') },
    next_cursor: nullable(str),
  }),
  IdentityHistory: object({
    identity: str,
    chains: {
      type: 'array',
      items: object({
        revoked: { type: 'boolean' },
        cards: {
          type: 'array',
          items: object({
            ...cardRow,
            created_at: nullable(int),
            content_snapshot: str,
            signatures: { type: 'array', items: signature },
          }),
        },
      }),
    },
  }),
  ImportResult: object({
    imported: int,
    skipped: int,
    /** e3kit's Keyknox blobs and entries of the dump: stored, and found stored identically. */
    keyknox: object({ imported: int, skipped: int }),
    cards: int,
  }),
  ResetRequest: object({ confirm: { const: 'reset' } }),
  ResetResult: object({ cards: int }),
  FaultRule: object(faultRule, Object.keys(faultRule)),
  FaultList: object({
    faults: {
      type: 'array',
      items: object(
        { id: int, hits: int, remaining: nullable(int), ...faultRule },
        Object.keys(faultRule).filter((key) => key !== 'probability'),
      ),
    },
  }),
  FaultsCleared: object({ cleared: int }),
  RequestJournal: object({
    requests: {
      type: 'array',
      items: object(
        {
          seq: { type: 'integer', minimum: 1 },
          time: { type: 'string', format: 'date-time' },
          method: str,
          path: str,
          route: str,
          status: { type: 'integer' },
          code: nullable(str),
          identity: str,
          ms: { type: 'number', minimum: 0 },
          fault: str,
        },
        ['fault'],
      ),
    },
    total: int,
    size: { type: 'integer', minimum: 1 },
  }),
  KeyknoxV1: {
    ...object({ meta: str, value: str, version: str }),
    description: 'A Keyknox v1 blob: meta and value base64 (empty when none), version "n.0".',
  },
  KeyknoxV1Push: object({ meta: str, value: str }),
  KeyknoxV2Address: object({ root: str, path: str, key: str, identity: str }, [
    'root',
    'path',
    'key',
    'identity',
  ]),
  KeyknoxV2Push: object(keyknoxV2Push),
  KeyknoxV2Entry: object({ owner: str, ...keyknoxV2Push }),
  PythiaBrainkeyRequest: object({ blinded_password: str, brainkey_id: str }, ['brainkey_id']),
  PythiaSeed: object({ seed: str }),
  PythiaPasswordRequest: object(
    {
      blinded_password: str,
      user_id: str,
      version: { type: 'integer', minimum: 1 },
      include_proof: { type: 'boolean' },
    },
    ['version', 'include_proof'],
  ),
  PythiaTransform: object(
    { transformed_password: str, proof: object({ value_c: str, value_u: str }) },
    ['proof'],
  ),
};

/** Errors any route can answer with (connection limits, malformed HTTP, a server fault). */
const COMMON: WireCode[] = [
  'INTERNAL',
  'SERVER_BUSY',
  'HTTP_MALFORMED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
];
const JSON_BODY: WireCode[] = ['BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'BODY_PARSE'];
const CARD_AUTH: WireCode[] = [
  'AUTH_MISSING',
  'AUTH_SCHEME',
  'TOKEN_MALFORMED',
  'TOKEN_SIGNATURE',
  'TOKEN_EXPIRED',
  'TOKEN_NOT_YET_VALID',
  'TOKEN_ALGORITHM',
  'TOKEN_CLAIMS',
  'TOKEN_NOT_LOCAL',
  'ADMIN_TOKEN_ON_CARD_ROUTE',
];
const ADMIN_AUTH: WireCode[] = ['ADMIN_AUTH_MISSING', 'ADMIN_TOKEN_INVALID'];
/** The card validation codes (40xxx, docs/errors.md). */
const CARD_RULES = (Object.keys(WIRE_ERRORS) as WireCode[]).filter(
  (code) => WIRE_ERRORS[code].wire >= 40000 && WIRE_ERRORS[code].wire < 50000,
);
const CHAIN: WireCode[] = [
  'PREVIOUS_NOT_FOUND',
  'PREVIOUS_IDENTITY_MISMATCH',
  'PREVIOUS_SUPERSEDED',
  'SNAPSHOT_NOT_UNIQUE',
  'CHAIN_REVOKED',
];

/** A store that is away (503), damaged under one card (500), or stopped taking writes (503). */
const STORE_READ: readonly WireCode[] = ['STORE_UNAVAILABLE', 'STORE_CORRUPT'];
const STORE_WRITE: readonly WireCode[] = [...STORE_READ, 'STORE_READ_ONLY'];

/** Every error code each route can answer with (besides COMMON); a new route must add a row. */
const ROUTE_ERRORS: Record<RouteName, readonly WireCode[]> = {
  createCard: [...CARD_AUTH, ...JSON_BODY, ...CARD_RULES, ...STORE_WRITE],
  getCard: [...CARD_AUTH, 'CARD_ID_INVALID', 'CARD_NOT_FOUND', ...STORE_READ],
  searchCards: [
    ...CARD_AUTH,
    ...JSON_BODY,
    'SEARCH_EMPTY',
    'SEARCH_TOO_MANY',
    'TEXT_NOT_UNICODE',
    ...STORE_READ,
  ],
  revokeCard: [...CARD_AUTH, ...JSON_BODY, ...CARD_RULES, ...STORE_WRITE],
  revokeCardById: [
    ...CARD_AUTH,
    ...JSON_BODY,
    ...CHAIN,
    'CARD_ID_INVALID',
    'CARD_NOT_FOUND',
    'IDENTITY_MISMATCH',
    ...STORE_WRITE,
  ],
  health: [],
  keyknoxV1Pull: [...CARD_AUTH, ...STORE_READ],
  keyknoxV1Push: [
    ...CARD_AUTH,
    ...JSON_BODY,
    'KEYKNOX_VALUE_INVALID',
    'KEYKNOX_ADDRESS_INVALID',
    'KEYKNOX_CONFLICT',
    ...STORE_WRITE,
  ],
  keyknoxV1Reset: [...CARD_AUTH, ...STORE_WRITE],
  keyknoxV2Push: [
    ...CARD_AUTH,
    ...JSON_BODY,
    'KEYKNOX_VALUE_INVALID',
    'KEYKNOX_ADDRESS_INVALID',
    'KEYKNOX_IDENTITIES_INVALID',
    'KEYKNOX_ENTRY_TOO_LARGE',
    'KEYKNOX_CONFLICT',
    ...STORE_WRITE,
  ],
  keyknoxV2Pull: [...CARD_AUTH, ...JSON_BODY, 'KEYKNOX_ADDRESS_INVALID', ...STORE_READ],
  keyknoxV2Keys: [...CARD_AUTH, ...JSON_BODY, 'KEYKNOX_ADDRESS_INVALID', ...STORE_READ],
  keyknoxV2Reset: [...CARD_AUTH, ...JSON_BODY, 'KEYKNOX_ADDRESS_INVALID', ...STORE_WRITE],
  pythiaBrainkey: [
    ...CARD_AUTH,
    ...JSON_BODY,
    'PYTHIA_PASSWORD_INVALID',
    'PYTHIA_BRAINKEY_ID_INVALID',
    'PYTHIA_THROTTLED',
    'SERVER_BUSY',
  ],
  pythiaPassword: [
    ...CARD_AUTH,
    ...JSON_BODY,
    'PYTHIA_PASSWORD_INVALID',
    'PYTHIA_SALT_INVALID',
    'PYTHIA_VERSION_UNKNOWN',
    'PYTHIA_THROTTLED',
    'SERVER_BUSY',
  ],
  adminInfo: ADMIN_AUTH,
  adminCards: [...ADMIN_AUTH, 'QUERY_INVALID'],
  adminIdentities: [...ADMIN_AUTH, 'QUERY_INVALID'],
  adminIdentity: [...ADMIN_AUTH, 'QUERY_INVALID', 'IDENTITY_NOT_FOUND'],
  adminKeyknox: [...ADMIN_AUTH, 'QUERY_INVALID', ...STORE_READ],
  adminExport: ADMIN_AUTH,
  adminImport: [
    ...ADMIN_AUTH,
    ...CHAIN,
    'QUERY_INVALID',
    'UNSUPPORTED_MEDIA_TYPE',
    'IMPORT_NOT_EMPTY',
    'IMPORT_INVALID',
    'STORE_UNAVAILABLE',
  ],
  adminReset: [...ADMIN_AUTH, ...JSON_BODY, 'RESET_NOT_CONFIRMED', 'STORE_UNAVAILABLE'],
  adminRequests: [...ADMIN_AUTH, 'QUERY_INVALID'],
  adminFaults: ADMIN_AUTH,
  adminFaultsAdd: [...ADMIN_AUTH, ...JSON_BODY, 'FAULT_INVALID'],
  adminFaultsClear: ADMIN_AUTH,
  metrics: ADMIN_AUTH,
  page: [],
  pageAsset: ['ROUTE_NOT_FOUND'],
  openapi: [],
  docs: [],
  logCheckpoint: ['LOG_DISABLED'],
  logTile: ['LOG_DISABLED', 'LOG_TILE_NOT_FOUND', ...STORE_READ],
  logProof: [
    'LOG_DISABLED',
    'CARD_ID_INVALID',
    'CARD_NOT_FOUND',
    'LOG_NOT_INTEGRATED',
    ...STORE_READ,
  ],
};

export const errorsOf = (name: RouteName): WireCode[] => [
  ...new Set([...ROUTE_ERRORS[name], ...COMMON]),
];
