/**
 * A fault rule of `cards serve` as a test double: which requests it matches (a route of the
 * route table by name, a method, the identity of the request's token), how often (a probability
 * and a count), and what it does instead of serving them (a row of the wire table by name, a
 * delay, or a dropped connection). Parsed here from the JSON the admin API, `cards faults add`
 * and `cards serve --faults FILE` share; a rule that cannot be followed is FAULT_INVALID naming
 * the field. Admin and page routes are never faulted: a test must always be able to clear its
 * faults and read the journal. Pure.
 */
import { CardsError, WIRE_ERRORS, type WireCode } from './errors.js';
import { isObject } from './json.js';
import { lookUpRoute } from './route-name.js';
import { isAdminRoute, ROUTES, type RouteName } from './routes.js';

export interface FaultRule {
  /** A route of the route table; undefined: every route a fault may touch. */
  readonly route?: RouteName;
  readonly method?: string;
  /** The identity of the request's verified token. */
  readonly identity?: string;
  /** From 0 (exclusive) to 1; 1 when not given. */
  readonly probability: number;
  /** How many requests it faults at most; undefined: every one it matches. */
  readonly count?: number;
  /** The wire table's row sent, as the real refusal sends it. */
  readonly error?: WireCode;
  /** The row's other HTTP status (STORE_UNAVAILABLE: 503). */
  readonly status?: 503;
  /** Milliseconds waited before the answer (or the error, or the drop): a fixed time or a range. */
  readonly delay?: { readonly min: number; readonly max: number };
  /** The connection is closed without an answer. */
  readonly drop?: boolean;
}

/** The routes a fault may touch: every route but the admin API's and the page's. */
export const FAULTABLE_ROUTES: readonly RouteName[] = ROUTES.filter(
  (route) => !isAdminRoute(route),
).map((route) => route.name);

const KEYS = new Set([
  'route',
  'method',
  'identity',
  'probability',
  'count',
  'error',
  'status',
  'delay',
  'drop',
]);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']);
const DELAY_MAX_MS = 600_000;

const invalid = (message: string): CardsError => new CardsError('FAULT_INVALID', message);

/** A route a fault may touch, by name or unique prefix (route-name.ts). */
function faultRoute(name: string): RouteName {
  if (ROUTES.some((route) => route.name === name && isAdminRoute(route)))
    throw invalid(`route "${name}" is an admin or page route, which faults never touch.`);
  const found = lookUpRoute(name, FAULTABLE_ROUTES);
  if ('error' in found) throw invalid(found.error);
  return found.route;
}

/** `50` or `50-200` (milliseconds), or a number; a range's bounds in order. */
function delayOf(value: unknown): { min: number; max: number } {
  const text = typeof value === 'number' ? String(value) : value;
  const match = typeof text === 'string' ? /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(text) : null;
  const min = Number(match?.[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (!match || max < min || max > DELAY_MAX_MS)
    throw invalid(
      `delay must be milliseconds, fixed ("50") or a range ("50-200"), at most ${DELAY_MAX_MS}; got ${JSON.stringify(value)}.`,
    );
  return { min, max };
}

function errorOf(value: unknown): WireCode {
  if (typeof value === 'string' && Object.hasOwn(WIRE_ERRORS, value)) return value as WireCode;
  throw invalid(
    `error must be a name of the error table (docs/errors.md), such as TOKEN_EXPIRED, STORE_UNAVAILABLE or INTERNAL; got ${JSON.stringify(value)}.`,
  );
}

const text = (input: Record<string, unknown>, key: string): string | undefined => {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalid(`${key} must be a non-empty string.`);
  return value;
};

/** A rule from its JSON form; unknown fields are refused (a typo would widen the rule). */
function parseFaultRule(input: unknown): FaultRule {
  if (!isObject(input)) throw invalid('A fault rule is a JSON object.');
  for (const key of Object.keys(input))
    if (!KEYS.has(key))
      throw invalid(`unknown field "${key}"; a rule has ${[...KEYS].join(', ')}.`);
  const route = text(input, 'route');
  const method = text(input, 'method')?.toUpperCase();
  if (method !== undefined && !METHODS.has(method))
    throw invalid(`method must be an HTTP method, got "${method}".`);
  const identity = text(input, 'identity');
  const { probability = 1, count, status, drop } = input;
  if (typeof probability !== 'number' || !(probability > 0 && probability <= 1))
    throw invalid(
      `probability must be a number above 0 and at most 1, got ${JSON.stringify(probability)}.`,
    );
  if (count !== undefined && !(Number.isSafeInteger(count) && (count as number) >= 1))
    throw invalid(`count must be a positive integer, got ${JSON.stringify(count)}.`);
  const error = input.error === undefined ? undefined : errorOf(input.error);
  if (status !== undefined) {
    const row = error && WIRE_ERRORS[error];
    if (!row || !('alsoStatus' in row) || row.alsoStatus !== status)
      throw invalid(
        `status: only a row with another status takes one (STORE_UNAVAILABLE with 503); got ${JSON.stringify(status)}.`,
      );
  }
  if (drop !== undefined && typeof drop !== 'boolean') throw invalid('drop must be true or false.');
  const delay = input.delay === undefined ? undefined : delayOf(input.delay);
  if (error && drop)
    throw invalid('a rule answers with an error or drops the connection, not both.');
  if (!error && !drop && !delay) throw invalid('a rule needs an error, a delay or drop.');
  return {
    ...(route !== undefined && { route: faultRoute(route) }),
    ...(method !== undefined && { method }),
    ...(identity !== undefined && { identity }),
    probability,
    ...(count !== undefined && { count: count as number }),
    ...(error && { error }),
    ...(status !== undefined && { status: 503 as const }),
    ...(delay && { delay }),
    ...(drop && { drop }),
  };
}

/** A listed rule's state (its id, how often it fired, what is left) is not part of the rule. */
const STATE = new Set(['id', 'hits', 'remaining']);
const withoutState = (rule: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(rule).filter(([key]) => !STATE.has(key)));

/** A rule file or body: one rule, a list, or `{"faults": [...]}` (what GET /_cards/faults sends). */
export function parseFaultRules(input: unknown): FaultRule[] {
  const list = isObject(input) && Array.isArray(input.faults) ? input.faults : input;
  return (Array.isArray(list) ? list : [list]).map((rule, i) => {
    try {
      return parseFaultRule(isObject(rule) ? withoutState(rule) : rule);
    } catch (err) {
      if (err instanceof CardsError && Array.isArray(list))
        throw invalid(`rule ${i + 1}: ${err.message}`);
      throw err;
    }
  });
}

/** What a rule does, in a few words (the journal's mark and `cards faults list`). */
export function describeFault(rule: FaultRule): string {
  const delay =
    rule.delay &&
    (rule.delay.min === rule.delay.max
      ? `${rule.delay.min}ms`
      : `${rule.delay.min}-${rule.delay.max}ms`);
  const action = rule.drop ? 'drop' : rule.error ? rule.error : undefined;
  return [delay && `delay ${delay}`, action].filter(Boolean).join(', ');
}
