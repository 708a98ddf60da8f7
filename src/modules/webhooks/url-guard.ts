import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../core/errors/app-error.ts';

/**
 * The SSRF rule of DECISIONS §10: in production a webhook may not reach the service's own network.
 * A host that is, or resolves to, a loopback, private, link-local, unspecified or shared (CGNAT)
 * address is refused, checked on every address the name resolves to; an IPv4-mapped IPv6 address is
 * checked as the IPv4 address it maps. Off outside production, or with WEBHOOK_ALLOW_PRIVATE_URLS.
 */

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_V4_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** Whether `address` (an IP literal) is one a production webhook may not reach. */
export function isBlockedAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const mapped = MAPPED_V4.exec(plain);
  if (mapped) return isBlockedAddress(mapped[1]!);
  const hex = MAPPED_V4_HEX.exec(plain);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return isBlockedAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  const family = isIP(plain);
  if (family === 0) return true;
  return blocked.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export class BlockedUrlError extends Error {}

export interface UrlGuard {
  /** Whether the rule applies (production without WEBHOOK_ALLOW_PRIVATE_URLS). */
  readonly enforced: boolean;
  /** The addresses `hostname` resolves to, all allowed; throws BlockedUrlError otherwise. */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  /** For POST/PATCH: 422 naming `url` when its host is refused. */
  assertAllowedUrl(url: string): Promise<void>;
}

type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export function createUrlGuard(options: { enforced: boolean; resolver?: Resolver }): UrlGuard {
  const resolver = options.resolver ?? systemResolver;
  async function resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    const addresses = family !== 0 ? [{ address: host, family }] : await resolver(host);
    if (!options.enforced) return addresses;
    if (addresses.length === 0) throw new BlockedUrlError(`${hostname} resolves to no address`);
    const refused = addresses.find((entry) => isBlockedAddress(entry.address));
    if (refused) throw new BlockedUrlError(`${hostname} is or resolves to a private address (${refused.address})`);
    return addresses;
  }
  return {
    enforced: options.enforced,
    resolve,
    async assertAllowedUrl(url) {
      if (!options.enforced) return;
      try {
        await resolve(new URL(url).hostname);
      } catch (error) {
        const message =
          error instanceof BlockedUrlError
            ? `${error.message}: webhooks may not reach private networks`
            : `its host does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`;
        throw AppError.validation([{ field: 'url', message }]);
      }
    },
  };
}
