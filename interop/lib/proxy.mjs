// A loopback pass-through proxy that records every request it forwards (method, path,
// Authorization header, status, the request's headers and the answer's as the server sent
// them), so a test can count exactly what a stock client sent. `answerHeaders` may rewrite
// the headers of what it passes back (a test of what a client does without one of them).
import { createServer, request } from 'node:http';

/**
 * @param {string} target base URL of the real server, e.g. http://127.0.0.1:1234
 * @param {{ answerHeaders?: (headers: import('node:http').IncomingHttpHeaders) => import('node:http').IncomingHttpHeaders }} [options]
 */
export async function startRecordingProxy(target, { answerHeaders = (headers) => headers } = {}) {
  const upstream = new URL(target);
  /** @type {{ method: string, path: string, authorization?: string, headers: object, status?: number, answer?: object }[]} */
  const requests = [];
  const server = createServer((req, res) => {
    const entry = {
      method: req.method,
      path: req.url,
      authorization: req.headers.authorization,
      headers: req.headers,
    };
    requests.push(entry);
    const headers = { ...req.headers, host: upstream.host };
    const out = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        entry.status = answer.statusCode;
        entry.answer = answer.headers;
        res.writeHead(answer.statusCode ?? 502, answerHeaders({ ...answer.headers }));
        answer.pipe(res);
      },
    );
    out.on('error', (err) => {
      entry.status = 502;
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(err));
    });
    req.pipe(out);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}
