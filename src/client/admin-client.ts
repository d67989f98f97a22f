/**
 * The admin API's client: `Authorization: Bearer <admin token>` on /_cards/… paths
 * of the route table. An Error object answer becomes its CardsError; a network failure or a
 * request past its deadline is UNREACHABLE. Never prints, never reads files or the environment.
 *
 * The deadline (`timeoutMs`, the CLI's --timeout) covers a whole request, its answer read; a
 * streamed answer (an export) until it starts, then for as long as it streams; a streamed
 * upload (an import) for as long as the server takes it: each chunk it takes starts the
 * deadline again, since the server imports line by line and answers after the last.
 */
import { CardsError } from '../core/errors.js';
import { identitySegment } from '../core/identity-segment.js';
import { ROUTES, type HttpMethod, type RouteName } from '../core/routes.js';
import { LIMITS } from '../core/limits.js';
import { boundedBody } from './bounded-body.js';
import { DEFAULT_TIMEOUT_MS } from './defaults.js';
import { ANSWER_DEPTH_MAX, readAnswerJson } from './answer-json.js';
import { readErrorObject } from './error-object.js';
import { answerTooLarge } from './http-client.js';
import { nodeFetch } from './node-fetch.js';

interface AdminClientOptions {
  readonly url: string;
  /** Undefined: none sent (a loopback-only server needs none). */
  readonly token?: string;
  /** Where the token came from (a flag, a variable, a file), named when the server refuses it. */
  readonly tokenFrom?: string;
  /** Why no token is sent, when one was withheld (another server's), named when one is asked. */
  readonly withheld?: string;
  /** The deadline in ms (default DEFAULT_TIMEOUT_MS); 0: none. */
  readonly timeoutMs?: number;
  /** Whether a JSON answer has the form its route documents (default: any JSON). */
  readonly answers?: (name: RouteName, value: unknown) => Promise<boolean>;
  /** The media types a route's success answer has (default: any). */
  readonly answerTypes?: (name: RouteName) => readonly string[];
}

/** What a request sends and how long it may take; `end` once the answer is in hand. */
type Deadline = {
  options: RequestOptions;
  signal: AbortSignal | undefined;
  end: () => void;
};

type RequestOptions = {
  param?: string;
  query?: Record<string, string | undefined>;
  body?: string | ReadableStream<Uint8Array>;
  type?: string;
};

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
  readonly #withheld: string | undefined;
  readonly #timeoutMs: number;
  readonly #answers: NonNullable<AdminClientOptions['answers']>;
  readonly #answerTypes: NonNullable<AdminClientOptions['answerTypes']>;

  constructor(options: AdminClientOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#token = options.token;
    this.#tokenFrom = options.tokenFrom;
    this.#withheld = options.withheld;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#answers = options.answers ?? (async () => true);
    this.#answerTypes = options.answerTypes ?? (() => []);
  }

  /** The service's base address, as messages name it. */
  get url(): string {
    return this.#base;
  }

  /** The answer of a 2xx, its body unread (it may stream): the deadline ends once it starts. */
  async request(
    method: HttpMethod,
    name: RouteName,
    options: RequestOptions = {},
  ): Promise<Response> {
    const deadline = this.#deadline(options);
    let response: Response;
    try {
      response = await this.#send(method, name, deadline.options, deadline.signal);
    } finally {
      deadline.end();
    }
    return response.body ? this.#cutShort(response, response.body) : response;
  }

  /**
   * The answer with its body read through: a connection that fails while the body streams (the
   * server or the link gone mid-answer) fails the read with UNREACHABLE, as a connection that
   * fails before the answer does, so the CLI reports it rather than a transport's own error.
   */
  #cutShort(response: Response, body: ReadableStream<Uint8Array>): Response {
    const reader = body.getReader();
    const base = this.#base;
    const read = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          controller.error(
            new CardsError(
              'UNREACHABLE',
              `The service at ${base} stopped answering part-way through its answer (${(err as Error).message}).`,
            ),
          );
          return;
        }
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(read, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /** The JSON of a 2xx answer, read within the deadline; one that is not JSON, nests past
   * ANSWER_DEPTH_MAX or is not of the form its route gives (`answers`) is NOT_A_SERVICE. */
  async json<T>(method: HttpMethod, name: RouteName, options: RequestOptions = {}): Promise<T> {
    const deadline = this.#deadline(options);
    try {
      const response = await this.#send(method, name, deadline.options, deadline.signal);
      const bytes = await boundedBody(response, LIMITS.answerMax).catch((err: unknown) => {
        throw this.#unreachable(err, deadline.signal);
      });
      if (bytes === undefined) throw answerTooLarge(this.#base);
      const value = readAnswerJson(bytes.toString('utf8'));
      if (value === undefined)
        throw new CardsError(
          'NOT_A_SERVICE',
          `not a Cards service at ${this.#base}: its answer to ${method} ${name} is not JSON nested at most ${ANSWER_DEPTH_MAX} deep.`,
        );
      if (!(await this.#answers(name, value)))
        throw new CardsError(
          'NOT_A_SERVICE',
          `not a Cards service at ${this.#base}: its answer to ${method} ${name} is not of the form the admin API gives (GET /openapi.json).`,
        );
      return value as T;
    } finally {
      deadline.end();
    }
  }

  /**
   * The request's deadline: its whole length, or for a streamed upload the longest it may go
   * without progress (each chunk the connection takes starts it again; after the last, the
   * answer must start within it). `options` is what to send: a streamed body is watched.
   */
  #deadline(options: RequestOptions): Deadline {
    if (this.#timeoutMs <= 0) return { options, signal: undefined, end: () => undefined };
    const seconds = Math.round(this.#timeoutMs / 100) / 10;
    const controller = new AbortController();
    const start = (why: string): NodeJS.Timeout =>
      setTimeout(() => controller.abort(new Error(why)), this.#timeoutMs);
    const { body } = options;
    if (!(body instanceof ReadableStream)) {
      const timer = start(`no answer within ${seconds} s`);
      return { options, signal: controller.signal, end: () => clearTimeout(timer) };
    }
    const stalled = `no progress for ${seconds} s`;
    let timer = start(stalled);
    const watched = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          clearTimeout(timer);
          timer = start(stalled);
          out.enqueue(chunk);
        },
      }),
    );
    return {
      options: { ...options, body: watched },
      signal: controller.signal,
      end: () => clearTimeout(timer),
    };
  }

  /** The transport's error is the cause, so the CLI can say what it means (an unknown host, TLS to an HTTP port). */
  #unreachable(err: unknown, signal: AbortSignal | undefined): CardsError {
    const aborted = signal?.aborted === true;
    const why = ((aborted ? signal.reason : err) as Error).message;
    return new CardsError(
      'UNREACHABLE',
      `The service at ${this.#base} could not be reached (${why}).`,
      aborted ? {} : { cause: err },
    );
  }

  async #send(
    method: HttpMethod,
    name: RouteName,
    options: RequestOptions,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const { path, form } = pathOf(name, options.param);
    const query = new URLSearchParams(form && { form });
    for (const [key, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) query.set(key, value);
    const url = `${this.#base}${path}${query.size ? `?${query}` : ''}`;
    let response: Response;
    try {
      response = await nodeFetch(url, {
        method,
        headers: {
          ...(this.#token !== undefined && { authorization: `Bearer ${this.#token}` }),
          ...(options.type && { 'content-type': options.type }),
        },
        ...(options.body !== undefined && { body: options.body }),
        ...(signal && { signal }),
      });
    } catch (err) {
      throw this.#unreachable(err, signal);
    }
    if (response.ok) {
      // An answer of another media type (an HTML page answering every path) is no admin answer,
      // however it parses: an export of it would be counted as lines of cards.
      const types = this.#answerTypes(name);
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (types.length === 0 || types.includes(type)) return response;
      await response.body?.cancel().catch(() => undefined);
      throw new CardsError(
        'NOT_A_SERVICE',
        `not a Cards service at ${this.#base}: it answered ${method} ${name} with ${type || 'no Content-Type'}, where the admin API answers ${types.join(' or ')}.`,
      );
    }
    // An Error object is a few hundred bytes: a longer answer is not one.
    const bytes = await boundedBody(response, 64 * 1024).catch(() => undefined);
    const { code, message } = readErrorObject(bytes?.toString('utf8') ?? '');
    if (code) {
      // A refused token: say which one was sent, so the right source gets fixed.
      const sent =
        response.status !== 401
          ? ''
          : this.#token === undefined
            ? ` (no admin token was sent${this.#withheld === undefined ? '' : `: ${this.#withheld}`})`
            : ` (the admin token sent came from ${this.#tokenFrom ?? 'the caller'})`;
      // A Cards service without the admin API (`cards serve --no-admin`, the deployed service)
      // answers its routes as any unknown route: say which API is missing.
      if (code === 'ROUTE_NOT_FOUND')
        throw new CardsError(
          code,
          `${this.#base} has no admin API (${method} ${path} is not one of its routes): a \`cards serve\` started with --no-admin, or a service other than \`cards serve\`.`,
          {
            hint: 'restart the server without --no-admin, or point --url at a `cards serve` with its admin API on',
          },
        );
      throw new CardsError(code, message && `${message}${sent}`);
    }
    throw new CardsError(
      'SERVICE_REFUSED',
      `${method} ${url} answered ${response.status}; is --url a cards serve with its admin API on?`,
    );
  }
}
