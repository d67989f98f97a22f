/**
 * What the tests of where tokens go share: another server on this machine that records what it
 * was sent (method, path, Authorization) and answers every request 401, and the commands that
 * send a token: the admin API's, which ask without one, and the card commands, which send no
 * request without one.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenSink {
  readonly url: string;
  /** `METHOD PATH AUTHORIZATION` of each request, the last empty when none was sent. */
  readonly received: string[];
  close(): void;
}

export async function tokenSink(): Promise<TokenSink> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    request.resume();
    response
      .writeHead(401, { 'content-type': 'application/json' })
      .end('{"code":"20303","message":"Token signature is invalid or its key is not trusted."}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => server.close() };
}

const ID = 'a'.repeat(64);
/** The admin API's commands. */
export const ADMIN_COMMANDS: readonly (readonly string[])[] = [
  ['list'],
  ['status'],
  ['requests'],
  ['history', 'alice'],
  ['export'],
  ['keyknox'],
];
/** The card commands. */
export const CARD_COMMANDS: readonly (readonly string[])[] = [
  ['get', ID, '--identity', 'alice'],
  ['search', 'alice'],
  ['create', '--identity', 'alice', '--new-key'],
  ['revoke', ID, '--identity', 'alice'],
];
