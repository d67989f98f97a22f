/**
 * The page's files: plain HTML, CSS and ES modules in src/http/page/, served as they are (no
 * build step, nothing fetched from the internet), plus the ES modules of @noble/curves and
 * @noble/hashes from node_modules, which the page's import map names, so that the browser
 * verifies signatures with the same library the tests cross-check node:crypto against, and the
 * compiled modules of src/core the page shares with the CLI (text escapes, identity paths).
 * Only names made of safe characters and ending in .html/.js/.css are served; files are read
 * once and kept. An HTML document carries its own Content-Security-Policy (security-headers.ts).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { CardsError } from '../core/errors.js';
import { pagePolicy } from './security-headers.js';

/** src/http/page/ of the package, from dist/src/http/page.js or src/http/page.ts alike. */
const PAGE_DIR = fileURLToPath(new URL('../../../src/http/page/', import.meta.url));
const PAGE_DIR_SOURCE = fileURLToPath(new URL('./page/', import.meta.url));

const packageDir = (specifier: string): string =>
  dirname(fileURLToPath(import.meta.resolve(specifier)));

const ROOTS: Readonly<Record<string, () => string>> = {
  'noble/curves/': () => packageDir('@noble/curves/ed25519.js'),
  'noble/hashes/': () => packageDir('@noble/hashes/sha2.js'),
  // The compiled core (pure, no I/O): the page escapes text and builds identity paths with the
  // very modules the CLI and the server use.
  'core/': () => fileURLToPath(new URL('../core/', import.meta.url)),
};

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const SAFE_NAME = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*\.(html|js|css)$/;

/** A file as sent: its bytes, and for an HTML document its own Content-Security-Policy. */
interface PageFile {
  readonly body: Buffer;
  readonly policy?: string;
}

const cache = new Map<string, Promise<PageFile>>();

function readOnce(path: string): Promise<PageFile> {
  let file = cache.get(path);
  if (!file) {
    file = readFile(path).then((body) =>
      path.endsWith('.html') ? { body, policy: pagePolicy(body.toString('utf8')) } : { body },
    );
    cache.set(path, file);
    file.catch(() => cache.delete(path));
  }
  return file;
}

async function send(reply: FastifyReply, paths: readonly string[], type: string) {
  for (const path of paths) {
    try {
      const { body, policy } = await readOnce(path);
      if (policy !== undefined) reply.header('content-security-policy', policy);
      return reply.type(type).header('cache-control', 'no-cache').send(body);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new CardsError('ROUTE_NOT_FOUND');
}

/** One of the page's own files. */
export function servePageFile(reply: FastifyReply, name: string): Promise<FastifyReply> {
  const extension = SAFE_NAME.exec(name)?.[1];
  if (!extension) throw new CardsError('ROUTE_NOT_FOUND');
  return send(
    reply,
    [join(PAGE_DIR, name), join(PAGE_DIR_SOURCE, name)],
    TYPES[extension] as string,
  );
}

/** `/_page/<name>`: a page file, or a module of @noble/curves or @noble/hashes. */
export function servePageAsset(reply: FastifyReply, name: string): Promise<FastifyReply> {
  const extension = SAFE_NAME.exec(name)?.[1];
  if (!extension) throw new CardsError('ROUTE_NOT_FOUND');
  for (const [prefix, root] of Object.entries(ROOTS))
    if (name.startsWith(prefix)) {
      if (extension !== 'js') throw new CardsError('ROUTE_NOT_FOUND');
      return send(reply, [join(root(), name.slice(prefix.length))], TYPES.js as string);
    }
  return servePageFile(reply, name);
}
