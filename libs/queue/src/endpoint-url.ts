import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * True unless the address is ordinary global unicast. The classification comes from ipaddr.js's
 * maintained range table, so loopback, private, carrier-grade NAT, link-local, unique- and
 * site-local, multicast, documentation, reserved and every IPv6 range that tunnels or embeds an IPv4
 * address (IPv4-mapped and -compatible, NAT64, 6to4, Teredo) are refused; unparsable input too.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  return ipaddr.parse(address).range() !== 'unicast';
}

/** The host of a URL without IPv6 brackets, as a socket would be opened to it. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type EndpointUrlProblem = 'invalid_url' | 'private_address' | 'unresolvable';

/** What to tell the caller about each problem. */
export const ENDPOINT_URL_PROBLEMS: Record<EndpointUrlProblem, string> = {
  invalid_url: 'url must be an absolute http(s) URL without credentials',
  private_address: 'url resolves to a loopback, private or link-local address, which webhooks may not reach',
  unresolvable: 'url host does not resolve',
};

/**
 * Checks an endpoint URL before it is stored: http(s) only, and (unless `allowPrivate`) every
 * address its host resolves to must be public. Returns the problem, or null when acceptable.
 */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean): Promise<EndpointUrlProblem | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid_url';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname || url.username || url.password) {
    return 'invalid_url';
  }
  if (allowPrivate) return null;
  const host = urlHost(url);
  if (ipaddr.isValid(host)) return isPrivateAddress(host) ? 'private_address' : null;
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.some((a) => isPrivateAddress(a.address)) ? 'private_address' : null;
  } catch {
    return 'unresolvable';
  }
}
