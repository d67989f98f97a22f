/**
 * A card put into a real `cards serve` through the Cards API, as a client does: POSTed with a
 * token for its identity (signed by the server's app key); a refusal fails the test.
 */
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

/** POSTs `body` to the card route `path` of `server` as `identity`. */
export async function postCard(
  server: Pick<TestServer, 'url' | 'token'>,
  identity: string,
  body: unknown,
  path = '/card/v5',
): Promise<void> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Service ${await server.token(identity)}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  assert.ok(response.ok, await response.text());
}
