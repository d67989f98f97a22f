/**
 * The headers of every answer of the admin API and the page (OWASP Secure Headers Project):
 * a Content-Security-Policy (W3C CSP Level 3) that lets a document load nothing, run nothing
 * and be framed by no page, `X-Content-Type-Options: nosniff` (Fetch standard: a browser takes
 * the Content-Type as sent) and `X-Frame-Options: DENY` (RFC 7034) for browsers that predate
 * frame-ancestors. The page's HTML documents get a policy of their own (pagePolicy): scripts,
 * styles and fetches from this origin only, and the inline import map by its hash. The Cards
 * API and the log answer as the deployed service does, without them.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathMatcher, routePaths, type RouteSpec } from '../core/routes.js';

const LOCKED: readonly string[] = [
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

/** A document that loads and runs nothing (a JSON or text answer opened in a tab). */
const ANSWER_POLICY = ["default-src 'none'", ...LOCKED].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': ANSWER_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** An onRequest hook: the headers go on the answer, a refusal (401, 400) included. */
export function securityHeaders(
  _request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  reply.headers(SECURITY_HEADERS);
  done();
}

/** The folders of the admin API and the page: every path in them is theirs, unknown ones too. */
const GUARDED_FOLDERS = ['/_cards/', '/_page/'];

/**
 * Whether an answer at a request path is one of the admin API's or the page's, for the answers
 * sent before a route's hooks run (a 404 in their folders, a 405, a malformed escape, 503
 * SERVER_BUSY): a path of one of their routes (`routes`, those served), or any in their folders.
 */
export const guardedAtPath = (routes: readonly RouteSpec[], path: string): boolean =>
  path === '/_cards' ||
  GUARDED_FOLDERS.some((folder) => path.startsWith(folder)) ||
  routes.some(
    (route) =>
      (route.tag === 'admin' || route.tag === 'page') &&
      routePaths(route).some((spelling) => pathMatcher(spelling).test(path)),
  );

/** Inline `<script>` elements of an HTML document (only the import map is inline). */
const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g;

/**
 * The policy of one of the page's HTML documents: its own scripts, styles and fetches, each
 * inline script allowed by its SHA-256 (CSP Level 3 section 8.4: the hash of the element's text
 * as it is in the document).
 */
export function pagePolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '', 'utf8')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    ["script-src 'self'", ...hashes].join(' '),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    ...LOCKED,
  ].join('; ');
}
