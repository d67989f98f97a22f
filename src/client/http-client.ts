/**
 * HTTP client for a Cards Service v5 (spec 4; paths and headers as the stock client sends them,
 * docs/http.md "Routes"), remote or a local `cards serve`.
 *
 * Connections are kept alive (transport.ts). Every failure becomes a CardsError: an Error
 * object's code is mapped back through `codeForWire`; a 5xx or a network failure is
 * UNREACHABLE. Never prints, never reads files or the environment.
 */
import { isRawCard, type RawCard } from '../core/card.js';
import { asClause, CardsError, reworded } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { WireProfile } from '../core/profile.js';
import { routePath } from '../core/routes.js';
import { ANSWER_DEPTH_MAX, nestsTooDeep } from './answer-json.js';
import { DEFAULT_TIMEOUT_MS } from './defaults.js';
import { readErrorObject, serviceFailure } from './error-object.js';
import type { TokenSource } from './token-source.js';
import {
  AnswerTooLargeError,
  createTransport,
  type Exchange,
  type Transport,
} from './transport.js';

export interface ClientOptions {
  /** Base URL without the path, e.g. http://127.0.0.1:8080 (a trailing slash is dropped). */
  readonly url: string;
  readonly profile: WireProfile;
  readonly tokens: TokenSource;
  /** Identity used for the tokens of reads (get, search), which name no card identity. */
  readonly readIdentity?: string;
  /** Whole-request deadline in ms (default DEFAULT_TIMEOUT_MS); 0: none. */
  readonly timeoutMs?: number;
  /** Called with each request and response, token redacted (`--debug`, CARDS_DEBUG=1). */
  readonly debug?: (text: string) => void;
}

export interface FetchedCard {
  readonly card: RawCard;
  /** The superseded header was set: another card names this one as previous_card_id. */
  readonly superseded: boolean;
}

const AGENT = 'cards-cli';

export class CardsClient {
  readonly url: string;
  readonly profile: WireProfile;
  private readonly tokens: TokenSource;
  private readonly readIdentity: string;
  private readonly transport: Transport;
  private readonly debug: ((text: string) => void) | undefined;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.profile = options.profile;
    this.tokens = options.tokens;
    this.readIdentity = options.readIdentity ?? AGENT;
    this.transport = createTransport({ timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    this.debug = options.debug;
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.transport.close();
  }

  /** Create card (spec 4.1): the stored card, with the service's signature added. */
  async createCard(card: RawCard, identity: string): Promise<RawCard> {
    return readCard(await this.request('POST', routePath('createCard'), identity, card), this.url);
  }

  /** Get card (spec 4.2), with the superseded header read. */
  async getCard(id: string, identity = this.readIdentity): Promise<FetchedCard> {
    const res = await this.request('GET', routePath('getCard', { id }), identity);
    const header = res.headers[this.profile.supersededHeader.toLowerCase()];
    const value = Array.isArray(header) ? header[0] : header;
    return { card: readCard(res, this.url), superseded: value?.trim().toLowerCase() === 'true' };
  }

  /** Search (spec 4.3): at most 50 identities per request, as the stock client sends them. */
  async searchCards(
    identities: readonly string[],
    identity = this.readIdentity,
  ): Promise<RawCard[]> {
    const unique = [...new Set(identities)];
    const batches: string[][] = [];
    for (let i = 0; i < unique.length; i += LIMITS.searchIdentitiesMax)
      batches.push(unique.slice(i, i + LIMITS.searchIdentitiesMax));
    const results = await Promise.all(
      batches.map(async (batch) => {
        const res = await this.request('POST', routePath('searchCards'), identity, {
          identities: batch,
        });
        const body = readJson(res, this.url);
        if (!Array.isArray(body))
          throw notAService(this.url, res, 'search answered with something other than a list');
        if (!body.every(isRawCard))
          throw notAService(
            this.url,
            res,
            'search answered with a list holding something other than a card',
          );
        return body;
      }),
    );
    return results.flat();
  }

  /** Revoke with a revoking card (spec 4.4). */
  async revokeWithCard(card: RawCard, identity: string): Promise<RawCard> {
    return readCard(await this.request('POST', routePath('revokeCard'), identity, card), this.url);
  }

  /**
   * Revoke by id (spec 4.5): body literally `{}` (docs/http.md "Routes"); any 2xx succeeds. The
   * spec gives no body shape; `cards serve` answers with the revoking card it generated, which
   * is returned when the body is a card (null otherwise: the deployed service's body is ignored).
   */
  async revokeById(id: string, identity: string): Promise<RawCard | null> {
    const res = await this.request('POST', routePath('revokeCardById', { id }), identity, {});
    try {
      return readCard(res, this.url);
    } catch {
      return null;
    }
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    identity: string,
    body?: unknown,
  ): Promise<Exchange> {
    const token = await this.tokens.tokenFor(identity);
    const headers: Record<string, string> = {
      authorization: `${this.profile.scheme} ${token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Exchange;
    const text = body === undefined ? undefined : JSON.stringify(body);
    const started = Date.now();
    if (this.debug) this.debug(describeRequest(method, this.url + path, headers, text));
    try {
      res = await this.transport.send(method, new URL(this.url + path), headers, text);
    } catch (cause) {
      this.debug?.(`< no answer: ${(cause as Error).message} (${Date.now() - started} ms)\n`);
      if (cause instanceof AnswerTooLargeError) throw answerTooLarge(this.url);
      throw unreachable(this.url, cause);
    }
    if (this.debug) this.debug(describeResponse(res, Date.now() - started));
    if (res.status >= 200 && res.status < 300) return res;
    const refused = failure(res, this.url);
    // A refused token: say which one was sent, so the right source gets fixed.
    if (res.status === 401 && this.tokens.from !== undefined)
      throw reworded(refused, `${refused.message} (the token sent ${this.tokens.from})`);
    throw refused;
  }
}

const clip = (text: string): string => (text.length > 2000 ? `${text.slice(0, 2000)}…` : text);

/** A request as `--debug` prints it: the token is never shown, only its scheme. */
function describeRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
): string {
  const lines = [`> ${method} ${url}`];
  for (const [name, value] of Object.entries(headers))
    lines.push(
      `> ${name}: ${name === 'authorization' ? `${value.split(' ')[0]} <redacted>` : value}`,
    );
  if (body !== undefined) lines.push(`> ${clip(body)}`);
  return `${lines.join('\n')}\n`;
}

function describeResponse(res: Exchange, ms: number): string {
  const lines = [`< ${res.status} (${ms} ms)`];
  for (const [name, value] of Object.entries(res.headers))
    lines.push(`< ${name}: ${String(value)}`);
  if (res.body !== '') lines.push(`< ${clip(res.body)}`);
  return `${lines.join('\n')}\n`;
}

function unreachable(url: string, cause: unknown): CardsError {
  const err = cause as NodeJS.ErrnoException | undefined;
  const why =
    err?.code === 'ETIMEDOUT'
      ? err.message || 'no answer in time'
      : (err?.code ?? err?.message ?? String(cause));
  return new CardsError('UNREACHABLE', `The service at ${url} could not be reached (${why}).`, {
    cause,
  });
}

/** An answer longer than any a Cards service gives (LIMITS.answerMax), given up on. */
export const answerTooLarge = (url: string): CardsError =>
  new CardsError(
    'NOT_A_SERVICE',
    `not a Cards service at ${url}: ${new AnswerTooLargeError().message}.`,
  );

/**
 * A URL that answers, but not as a Cards service: a web page, another API.
 * Said as such, with its own code, rather than as a refusal the user would try to fix.
 */
function notAService(url: string, res: Exchange, why: string): CardsError {
  const type = String(res.headers['content-type'] ?? 'no content type').split(';')[0];
  return new CardsError(
    'NOT_A_SERVICE',
    `not a Cards service at ${url}: HTTP ${res.status} (${type}), ${why}.`,
    { hint: 'check --url (CARDS_URL): the base address of a Cards Service, with no path' },
  );
}

/** An answer's JSON, read as every client here reads one (answer-json.ts: no depth past 64). */
function readJson(res: Exchange, url: string): unknown {
  if (nestsTooDeep(res.body))
    throw notAService(url, res, `JSON nested deeper than ${ANSWER_DEPTH_MAX}`);
  try {
    return JSON.parse(res.body) as unknown;
  } catch {
    throw notAService(url, res, 'not JSON');
  }
}

function readCard(res: Exchange, url: string): RawCard {
  const card = readJson(res, url);
  if (!isRawCard(card)) throw notAService(url, res, 'an answer that is not a card');
  return { content_snapshot: card.content_snapshot, signatures: card.signatures };
}

/** Turns an error response into the CardsError its Error object names (spec 7). */
function failure(res: Exchange, url: string): CardsError {
  const error = readErrorObject(res.body);
  const { code, message, whole } = error;
  // The service's messages are sentences; quoted inside one of ours, they end in its full stop.
  const quoted = (text: string | undefined) => (text ? `: ${asClause(text)}` : '');
  const failed = serviceFailure(res.status, error);
  if (failed !== undefined)
    return new CardsError('UNREACHABLE', `The service failed with HTTP ${res.status}${failed}.`);
  if (code !== undefined) return new CardsError(code, message);
  if (res.status === 401) return new CardsError('TOKEN_SIGNATURE', message);
  if (!whole) return notAService(url, res, 'and no Error object ({"code","message"})');
  if (res.status === 404)
    return new CardsError('ROUTE_NOT_FOUND', `HTTP 404 from the service${quoted(message)}.`);
  return new CardsError(
    'SERVICE_REFUSED',
    `The service refused the request with HTTP ${res.status}${quoted(message)}.`,
  );
}
