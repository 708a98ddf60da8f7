import { isIPv6 } from 'node:net';

/**
 * A client address as the rate limiter counts it: an IPv4 address as is; an IPv6 address by its /64 (one
 * subscriber's network, which hands its hosts any number of addresses), written in one form whatever
 * the client's spelling; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the IPv4 address.
 */
export function clientNetworkOf(ip: string): string {
  if (!isIPv6(ip)) return ip.toLowerCase();
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read as two groups). */
function ipv6Groups(ip: string): number[] {
  const address = ip.split('%')[0]!; // a zone (`fe80::1%eth0`) names an interface, not a network
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').flatMap(groupsOf));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function groupsOf(part: string): number[] {
  if (!part.includes('.')) return [parseInt(part, 16)];
  const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
