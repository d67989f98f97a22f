/**
 * The contract check: every response a test receives from a server is checked
 * against the OpenAPI document the server publishes (src/http/openapi.ts): its path and method
 * must be documented (else it must be 404 ROUTE_NOT_FOUND / 405 METHOD_NOT_ALLOWED), its status
 * must be one the operation lists, its content type one of that status's, and a JSON body must
 * match the schema (ajv, JSON Schema 2020-12), error codes included. Hooked into the HTTP test
 * harness (app.test.ts, admin.test.ts) and into fetch for servers started by server.ts, so the
 * whole HTTP suite is checked.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { PROFILES, type ProfileName } from '../../src/core/profile.js';
import { buildOpenApi } from '../../src/http/openapi.js';

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};
type Operation = {
  responses: Record<
    string,
    {
      content?: Record<string, { schema: unknown }>;
      headers?: Record<string, { schema: unknown }>;
    }
  >;
};

const docs = new Map<ProfileName, { doc: Doc; ajv: Ajv2020; paths: [RegExp, string][] }>();
const validators = new Map<string, ValidateFunction>();

/** The document as a profile's server publishes it, compiled once. */
function documentFor(profile: ProfileName) {
  let known = docs.get(profile);
  if (!known) {
    const doc = buildOpenApi(PROFILES[profile]) as unknown as Doc;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const paths = Object.keys(doc.paths).map((path): [RegExp, string] => {
      const source = path
        .split(/(\{[A-Za-z]+\})/)
        .map((part) =>
          part === '{asset}'
            ? '.+'
            : part.startsWith('{')
              ? '[^/]+'
              : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return [new RegExp(`^${source}$`), path];
    });
    known = { doc, ajv, paths };
    docs.set(profile, known);
  }
  return known;
}

const withDocRefs = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));

export interface ReceivedResponse {
  readonly method: string;
  /** Path with an optional query string. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: string;
}

/** Responses checked so far (a test can assert the hook ran). */
export let contractChecks = 0;

/** Fails (AssertionError) when the response does not match the document. */
export function checkContract(profile: ProfileName, response: ReceivedResponse): void {
  const method = response.method.toLowerCase();
  // HEAD has no body and OPTIONS is CORS machinery: neither is an API operation.
  if (method === 'head' || method === 'options') return;
  contractChecks++;
  const { doc, ajv, paths } = documentFor(profile);
  let path = response.url.split('?', 1)[0] as string;
  try {
    path = decodeURI(path);
  } catch {
    // a malformed escape: matched as sent
  }
  const template = paths.find(([pattern]) => pattern.test(path))?.[1];
  const operation = template ? doc.paths[template]?.[method] : undefined;
  const where = `${response.method} ${response.url} → ${response.status}`;
  const type = String(response.headers['content-type'] ?? '').split(';', 1)[0] as string;
  if (!operation) {
    // Undocumented path or method: only the generic 404/405 (and connection-level errors).
    if (response.status < 400) assert.fail(`${where}: a success on an undocumented operation`);
    return checkError(ajv, profile, where, type, response.body);
  }
  const documented = operation.responses[String(response.status)];
  if (!documented) {
    // Connection-level errors (too many connections, a malformed request) can meet any route.
    if ([400, 404, 405, 408, 413, 415, 431, 500, 503].includes(response.status))
      return checkError(ajv, profile, where, type, response.body);
    assert.fail(`${where}: status not documented for this operation`);
  }
  if (response.status === 204 || response.body === '') return;
  const content = documented.content ?? {};
  const media = content[type];
  assert.ok(media, `${where}: content type ${type} not documented (${Object.keys(content)})`);
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = response.headers[name.toLowerCase()];
    if (value !== undefined) assert.equal(value, (header.schema as { const: string }).const);
  }
  if (type !== 'application/json') return;
  const key = `${profile} ${template} ${method} ${response.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(withDocRefs(media.schema) as object);
    validators.set(key, validate);
  }
  const body: unknown = JSON.parse(response.body);
  assert.ok(
    validate(body),
    `${where}: body does not match the document: ${ajv.errorsText(validate.errors)}\n${response.body.slice(0, 500)}`,
  );
}

function checkError(
  ajv: Ajv2020,
  profile: ProfileName,
  where: string,
  type: string,
  body: string,
): void {
  if (body === '') return;
  assert.equal(type, 'application/json', `${where}: an error that is not the Error object`);
  const validate = ajv.getSchema('doc#/components/schemas/Error') as ValidateFunction;
  assert.ok(validate(JSON.parse(body)), `${where}: not the Error object of ${profile}: ${body}`);
}

/**
 * Wraps globalThis.fetch once: responses from a base URL registered here are checked (after
 * reading a copy of the body) before the caller sees them.
 */
const servers = new Map<string, ProfileName>();
let wrapped = false;

export function checkFetchesTo(baseUrl: string, profile: ProfileName): void {
  servers.set(baseUrl, profile);
  if (wrapped) return;
  wrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const profileOf = servers.get(url.origin);
    if (profileOf) {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      checkContract(profileOf, {
        method,
        url: url.pathname + url.search,
        status: response.status,
        headers,
        body: await response.clone().text(),
      });
    }
    return response;
  };
}
