/**
 * Whether a request's Host and Origin headers name this machine: what the admin API's loopback
 * exemption and `cards serve --accept-any-token` take from a server listening on loopback only.
 * A browser sends the Host of the name it resolved (a DNS-rebinding page on 127.0.0.1 still sends
 * its own name, RFC 9110 section 7.2) and the Origin of the page that made a cross-origin or
 * non-GET request (RFC 6454 section 7; the Fetch standard), which a page cannot forge.
 */

/** A loopback address or `localhost`, with or without a port, as a Host header spells it. */
const LOOPBACK_HOST = /^(127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::\d{1,5})?$/i;

export const isLoopbackHostHeader = (host: string | undefined): boolean =>
  host !== undefined && LOOPBACK_HOST.test(host);

/** An Origin of a page served from this machine (any port, http or https); `null` is not one. */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHostHeader(url.host);
}
