/**
 * The admin API's client: `Authorization: Bearer <admin token>` on /_cards/… paths
 * of the route table. An Error object answer becomes its CardsError; a network failure is
 * UNREACHABLE. Never prints, never reads files or the environment.
 */
import { CardsError, codeForWire } from '../core/errors.js';
import { identitySegment } from '../core/identity-segment.js';
import { ROUTES, type HttpMethod, type RouteName } from '../core/routes.js';

export interface AdminClientOptions {
  readonly url: string;
  /** Undefined: none sent (a loopback-only server needs none). */
  readonly token?: string;
  /** Where the token came from (a flag, a variable, a file), named when the server refuses it. */
  readonly tokenFrom?: string;
  readonly fetch?: typeof fetch;
}

/** The route's path with `param` as its segment, and the query that says its form. */
const pathOf = (name: RouteName, param?: string): { path: string; form?: string } => {
  const path = (ROUTES.find((route) => route.name === name) as { path: string }).path;
  if (param === undefined) return { path };
  const { segment, form } = identitySegment(param);
  return { path: path.replace(/:[A-Za-z]+/, segment), ...(form && { form }) };
};

export class AdminClient {
  readonly #base: string;
  readonly #token: string | undefined;
  readonly #tokenFrom: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: AdminClientOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#token = options.token;
    this.#tokenFrom = options.tokenFrom;
    this.#fetch = options.fetch ?? fetch;
  }

  async request(
    method: HttpMethod,
    name: RouteName,
    options: {
      param?: string;
      query?: Record<string, string | undefined>;
      body?: string | ReadableStream<Uint8Array>;
      type?: string;
    } = {},
  ): Promise<Response> {
    const { path, form } = pathOf(name, options.param);
    const query = new URLSearchParams(form && { form });
    for (const [key, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) query.set(key, value);
    const url = `${this.#base}${path}${query.size ? `?${query}` : ''}`;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers: {
          ...(this.#token !== undefined && { authorization: `Bearer ${this.#token}` }),
          ...(options.type && { 'content-type': options.type }),
        },
        ...(options.body !== undefined && { body: options.body, duplex: 'half' }),
      } as RequestInit);
    } catch (err) {
      throw new CardsError(
        'UNREACHABLE',
        `The service at ${this.#base} could not be reached (${(err as Error).cause ?? (err as Error).message}).`,
      );
    }
    if (response.ok) return response;
    let body: { code?: unknown; message?: unknown } = {};
    try {
      body = (await response.json()) as typeof body;
    } catch {
      // not the Error object
    }
    const code =
      typeof body.code === 'string' || typeof body.code === 'number'
        ? codeForWire(body.code)
        : undefined;
    if (code) {
      const message = typeof body.message === 'string' ? body.message : undefined;
      // A refused token: say which one was sent, so the right source gets fixed.
      const sent =
        response.status !== 401
          ? ''
          : this.#token === undefined
            ? ' (no admin token was sent)'
            : ` (the admin token sent came from ${this.#tokenFrom ?? 'the caller'})`;
      throw new CardsError(code, message && `${message}${sent}`);
    }
    throw new CardsError(
      'SERVICE_REFUSED',
      `${method} ${url} answered ${response.status}; is --url a cards serve with its admin API on?`,
    );
  }

  async json<T>(
    method: HttpMethod,
    name: RouteName,
    options: Parameters<AdminClient['request']>[2] = {},
  ): Promise<T> {
    return (await (await this.request(method, name, options)).json()) as T;
  }
}
