/**
 * Helpers shared by the reliability tests: HTTP calls with cached tokens, raw socket
 * exchanges, a seeded random source, checks that a response is the Error object with a
 * documented code, that a card carries a valid service signature, and byte snapshots of a
 * store's files. Loopback only; every server runs on port 0 in a temp dir.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { decodeBase64 } from '../../src/core/encoding.js';
import { codeForWire, WIRE_ERRORS, type ErrorCode } from '../../src/core/errors.js';
import { verifyParts } from '../../src/crypto/ed25519.js';
import { parsePublicKey } from '../../src/crypto/keys.js';
import type { StorePaths } from '../../src/store/json/paths.js';
import type { TestContext } from 'node:test';
import type { Served } from '../helpers/server.js';

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

/** Tokens per server and identity: minting one per request would cost more than the request. */
const tokens = new WeakMap<Served, Map<string, Promise<string>>>();

export function tokenFor(server: Served, identity: string): Promise<string> {
  let known = tokens.get(server);
  if (!known) tokens.set(server, (known = new Map()));
  let token = known.get(identity);
  if (!token) known.set(identity, (token = server.token(identity, { ttlSeconds: 3600 })));
  return token;
}

/** One request with `Authorization: Service <token of identity>` (null: no header). */
export async function call(
  server: Served,
  method: string,
  path: string,
  options: {
    body?: unknown;
    raw?: string;
    identity?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const identity = options.identity === undefined ? 'alice' : options.identity;
  if (identity !== null) headers.authorization = `Service ${await tokenFor(server, identity)}`;
  const payload =
    options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, options.headers);
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(payload !== undefined && { body: payload }),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/**
 * Asserts that a reply is the Error object `{code, message}` with a documented code whose HTTP
 * status is the reply's, the code a string of digits (the default profile); returns the code.
 */
export function errorCodeOf(status: number, text: string, context = ''): ErrorCode {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${context}: ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  assert.ok(typeof body === 'object' && body !== null, `${context}: not an object`);
  const { code, message } = body as { code?: unknown; message?: unknown };
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], `${context}: keys`);
  assert.equal(typeof code, 'string', `${context}: code type`);
  assert.equal(typeof message, 'string', `${context}: message type`);
  const name = codeForWire(code as string);
  assert.ok(name, `${context}: undocumented code ${String(code)}`);
  assert.equal(WIRE_ERRORS[name].status, status, `${context}: status of ${name}`);
  return name;
}

export const replyCode = (reply: Reply, context = ''): ErrorCode | number =>
  reply.status < 400 ? reply.status : errorCodeOf(reply.status, reply.text, context);

/** Checks the last signature of a stored card: signer `service`, over the snapshot alone. */
export function assertServiceSigned(cardJson: string, serviceKey: string, context = ''): void {
  const card = JSON.parse(cardJson) as {
    content_snapshot: string;
    signatures: { signer: string; signature: string }[];
  };
  const service = card.signatures.at(-1);
  assert.equal(service?.signer, 'service', `${context}: service signer`);
  const snapshot = decodeBase64(card.content_snapshot);
  const signature = decodeBase64(service.signature);
  assert.ok(snapshot && signature, `${context}: base64`);
  assert.ok(
    verifyParts(parsePublicKey(serviceKey), signature, snapshot),
    `${context}: service signature verifies`,
  );
}

/** A digest of the bytes of a store's file and journal ('-' when absent), to compare later. */
export function storeBytes(paths: StorePaths): string {
  const read = (path: string): string =>
    existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : '-';
  return `store ${read(paths.store)}, journal ${read(paths.journal)}`;
}

/** mulberry32: a small seeded generator, so a failing run can be replayed exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a TCP connection to a server's port and waits until it is connected. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

export interface RawResult {
  /** Everything the server wrote back. */
  readonly text: string;
  /** Milliseconds from connect to close. */
  readonly ms: number;
}

/**
 * Sends raw bytes on a fresh connection and resolves with what came back once the server closes
 * it (or `waitMs` passed, then the socket is destroyed).
 */
export function rawExchange(
  url: string,
  data: string | Buffer,
  waitMs = 5_000,
): Promise<RawResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started });
    };
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', () => socket.write(data));
  });
}

/** Status line and body of a raw HTTP/1.1 response (the first one on the connection). */
export function parseRawResponse(text: string): { status: number; body: string } | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  if (!match) return undefined;
  const head = text.indexOf('\r\n\r\n');
  const headers = text.slice(0, head);
  let body = text.slice(head + 4);
  const length = /\r\ncontent-length: *(\d+)/i.exec(headers)?.[1];
  if (length !== undefined) body = Buffer.from(body).subarray(0, Number(length)).toString('utf8');
  return { status: Number(match[1]), body };
}

/**
 * Registers servers for clean-up at the end of a test, newest first (a restarted server shares
 * the first one's temp dir, which the first one's dispose removes). `first` runs before.
 */
export function disposer(t: TestContext, first?: () => void): <S extends Served>(server: S) => S {
  const servers: Served[] = [];
  t.after(async () => {
    first?.();
    for (const server of servers.reverse()) await server.dispose();
  });
  return (server) => {
    servers.push(server);
    return server;
  };
}
