/**
 * Whether an admin API answer has the form its route documents: the JSON Schema the server
 * publishes for it (src/http/openapi.ts, GET /openapi.json), checked with ajv (JSON Schema
 * 2020-12, as OpenAPI 3.1 uses), so that what a command reads of an answer is there with its
 * type, and a server that answers otherwise is NOT_A_SERVICE rather than a TypeError in a
 * command. Names a client does not know are let through (a newer server may say more), where
 * the server's own document lists its fields exactly. Compiled once per route, on its first
 * answer; ajv is loaded only by the commands that read the admin API. Kept with the server's
 * home, as the document it reads is the one the server builds and serves.
 */
import type { RouteName } from '../core/routes.js';
import { answerContentOf } from '../http/openapi.js';
import { SCHEMAS } from '../http/openapi-schemas.js';

type Validate = (value: unknown) => boolean;
const compiled = new Map<RouteName, Validate | undefined>();
let ajv: Promise<{ compile(schema: unknown): Validate }> | undefined;

/** The schema with `additionalProperties: false` dropped everywhere (see the module's note). */
function lenient(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lenient);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !(key === 'additionalProperties' && v === false))
      .map(([key, v]) => [key, lenient(v)]),
  );
}

/** The media types route `name` answers a success with (`application/json`, …). */
export const answerTypesOf = (name: RouteName): readonly string[] =>
  Object.keys(answerContentOf(name));

/** True when `value` is of the form route `name` answers with (or the route's answer is not JSON). */
export async function answersAsDocumented(name: RouteName, value: unknown): Promise<boolean> {
  if (!compiled.has(name)) {
    const schema = answerContentOf(name)['application/json']?.schema;
    ajv ??= import('ajv/dist/2020.js').then(
      ({ Ajv2020 }) => new Ajv2020({ strict: false, validateFormats: false }),
    );
    const checker = await ajv;
    compiled.set(
      name,
      schema && checker.compile(lenient({ ...schema, components: { schemas: SCHEMAS } })),
    );
  }
  return compiled.get(name)?.(value) ?? true;
}
