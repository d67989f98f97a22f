/**
 * A request to e3kit's routes of a server started by server.ts, as e3kit sends it: a stock
 * token of `identity` for the app (`Virgil <token>`), a JSON body; the answer's status, body and
 * Keyknox hash header.
 */
import type { Served } from './server.js';

export const E3KIT_APP = 'e3kit-test-app';

/** The fields tests read of an answer. */
export type E3kitBody = Partial<Record<'seed' | 'version' | 'value' | 'meta', string>> & {
  code?: number;
};

export async function e3kitCall(
  server: Served,
  method: string,
  path: string,
  identity: string,
  options: { body?: unknown; headers?: Record<string, string>; app?: string } = {},
): Promise<{ status: number; body: E3kitBody; hash: string | null }> {
  const token = await server.token(identity, { format: 'stock', appId: options.app ?? E3KIT_APP });
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Virgil ${token}`,
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as E3kitBody,
    hash: response.headers.get('virgil-keyknox-hash'),
  };
}
