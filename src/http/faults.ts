/**
 * Faults on purpose (`cards serve` as a test double): the rules in force (core/fault-rule.ts) and
 * what applies them, on every request of a route a fault may touch, after its route's guard,
 * in front of its handler. A faulted request reaches no handler, so it changes
 * nothing (a faulted create stores nothing and logs nothing); its error is sent by the stack's
 * `refuse`, so its bytes are those of the real refusal in the active wire profile; the journal
 * marks it with what the rule did.
 */
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRouteHookHandler,
  RouteOptions,
} from 'fastify';
import { CardsError } from '../core/errors.js';
import { describeFault, FAULTABLE_ROUTES, type FaultRule } from '../core/fault-rule.js';
import type { RouteName } from '../core/routes.js';

/** A rule in force: its id, how often it fired, and how many more it may fault. */
export interface ActiveFault extends FaultRule {
  readonly id: number;
  hits: number;
  /** Null for a rule without a count. */
  remaining: number | null;
}

export class FaultSet {
  #rules: ActiveFault[] = [];
  #next = 1;
  /** Delayed requests and what each does when its delay ends. */
  readonly #waiting = new Map<NodeJS.Timeout, () => void>();
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  get empty(): boolean {
    return this.#rules.length === 0;
  }

  add(rules: readonly FaultRule[]): ActiveFault[] {
    const added = rules.map((rule) => ({
      ...rule,
      id: this.#next++,
      hits: 0,
      remaining: rule.count ?? null,
    }));
    this.#rules.push(...added);
    return added;
  }

  list(): readonly ActiveFault[] {
    return this.#rules;
  }

  /** Removes every rule; the number removed. */
  clear(): number {
    const n = this.#rules.length;
    this.#rules = [];
    return n;
  }

  /** The first rule that matches and fires (its count and hits updated), if any. */
  take(route: RouteName, method: string, identity: string): ActiveFault | undefined {
    for (const rule of this.#rules) {
      if (rule.remaining === 0) continue;
      if (rule.route !== undefined && rule.route !== route) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.identity !== undefined && rule.identity !== identity) continue;
      if (rule.probability < 1 && this.#random() >= rule.probability) continue;
      rule.hits++;
      if (rule.remaining !== null) rule.remaining--;
      return rule;
    }
    return undefined;
  }

  delayOf(rule: FaultRule): number {
    if (!rule.delay) return 0;
    const { min, max } = rule.delay;
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  /** Runs `act` after `ms`, or sooner when the server stops (`hurry`). */
  wait(ms: number, act: () => void): void {
    const timer = setTimeout(() => {
      this.#waiting.delete(timer);
      act();
    }, ms);
    this.#waiting.set(timer, act);
  }

  /**
   * Ends every delay now: a stopping server finishes its requests in flight, and a delay is no
   * work to finish, so a rule's minute-long delay does not hold a shutdown for a minute.
   */
  hurry(): void {
    const acts = [...this.#waiting];
    this.#waiting.clear();
    for (const [timer, act] of acts) {
      clearTimeout(timer);
      act();
    }
  }
}

export interface FaultHookDeps {
  readonly faults: FaultSet;
  /** Sends the refusal as the stack sends every refusal (stack.ts). */
  readonly refuse: (reply: FastifyReply, err: CardsError) => FastifyReply;
  /** Closes the connection without an answer, and records the request (stack.ts). */
  readonly drop: (request: FastifyRequest, reply: FastifyReply) => void;
}

const faultable = new Set<string>(FAULTABLE_ROUTES);

/**
 * An onRoute hook giving each route a fault may touch (the admin API and the page get none) its
 * handler behind the rules: run after the route's guard and hooks, as the handler is, bound to
 * the route's name, a property read when no rule is in force (no hook of its own, so no step of
 * fastify's request cycle per request). A card route's identity is its guard's, so a rule for an
 * identity matches requests whose token that guard verified.
 */
export function faultHooks(deps: FaultHookDeps): onRouteHookHandler {
  return (route) => {
    const name = (route.config as FastifyContextConfig | undefined)?.routeName;
    if (name === undefined || !faultable.has(name)) return;
    route.handler = behindFaults(deps, name, route.handler);
  };
}

type RouteHandler = RouteOptions['handler'];

function behindFaults(deps: FaultHookDeps, route: RouteName, handler: RouteHandler): RouteHandler {
  const { faults } = deps;
  return function (this: FastifyInstance, request, reply) {
    if (faults.empty) return handler.call(this, request, reply);
    const rule = faults.take(route, request.method, request.identity);
    if (!rule) return handler.call(this, request, reply);
    request.fault = `fault ${rule.id}: ${describeFault(rule)}`;
    const act = (): unknown => {
      if (rule.drop) deps.drop(request, reply);
      else if (rule.error)
        deps.refuse(
          reply,
          new CardsError(rule.error, undefined, rule.status && { status: rule.status }),
        );
      else return handler.call(this, request, reply);
      return undefined;
    };
    const ms = faults.delayOf(rule);
    return ms > 0 ? new Promise<void>((resolve) => faults.wait(ms, resolve)).then(act) : act();
  };
}
