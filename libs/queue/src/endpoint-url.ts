import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses a webhook must not reach from inside our network (SSRF): loopback, private, link-local. */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}

/** True for loopback, private, link-local and other non-public addresses (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return isPrivateAddress(host) ? 'private_address' : null;
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.some((a) => isPrivateAddress(a.address)) ? 'private_address' : null;
  } catch {
    return 'unresolvable';
  }
}
