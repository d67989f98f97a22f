/**
 * `fetch` over node:http(s), for the clients that stream (the admin API's export and import, a
 * log's tiles, a witness's cosignatures). The global fetch follows the Fetch Standard's port
 * blocking (§2.9 "bad port": 6000, 6665-6669, 10080 and others answer "bad port" without a
 * connection), and `cards serve --port` may be any of them; a Cards server answers on whatever
 * port it was given, so every client of it goes through node:http, as the card routes' client
 * does (transport.ts). The subset of fetch its callers use: a method, headers, a body (a string,
 * bytes or a stream), a signal, and a Response whose body streams as it arrives.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

type Init = Pick<RequestInit, 'method' | 'headers' | 'body' | 'signal'>;

/** Statuses whose Response has no body (Fetch §2.2.3 "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function nodeFetch(input: string | URL, init: Init = {}): Promise<Response> {
  const url = new URL(input);
  const { signal } = init;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const request = url.protocol === 'https:' ? https.request : http.request;
    let answer: http.IncomingMessage | undefined;
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers)) },
      (res) => {
        answer = res;
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        const status = res.statusCode ?? 0;
        const empty = NULL_BODY.has(status) || init.method === 'HEAD';
        try {
          const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, statusText: res.statusMessage, headers }));
        } catch (err) {
          // A status a Response cannot hold (below 200 or above 599).
          res.destroy();
          reject(err as Error);
        }
        if (empty) res.resume();
      },
    );
    // An abort fails the body being read with the signal's reason (a deadline's TimeoutError).
    const abort = (): void => {
      answer?.destroy(signal?.reason as Error);
      req.destroy(signal?.reason as Error);
    };
    signal?.addEventListener('abort', abort, { once: true });
    req.once('close', () => signal?.removeEventListener('abort', abort));
    req.on('error', reject);
    const { body } = init;
    if (body === undefined || body === null) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else if (body instanceof ReadableStream)
      Readable.fromWeb(body as never)
        .on('error', (err) => req.destroy(err))
        .pipe(req);
    else reject(new TypeError('nodeFetch sends a string, bytes or a ReadableStream'));
  });
}
