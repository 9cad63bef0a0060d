// Where webhooks may go. A receiver URL is a partner's input and we POST to it from inside our
// network, so it must not reach loopback, private, link-local or cloud metadata addresses (SSRF).
// Pure functions: the address classifier, the URL rules, and the check of resolved addresses.
import { isIP, isIPv4 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'shared'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid';

type Range4 = [base: number, prefix: number, kind: AddressClass];

/** IPv4 ranges that are not the public internet; the first match wins, so narrow ones come first. */
const IPV4_RANGES: Range4[] = [
  [ip4('169.254.169.254'), 32, 'metadata'], // AWS, GCP, Azure, OpenStack instance metadata
  [ip4('0.0.0.0'), 8, 'unspecified'],
  [ip4('10.0.0.0'), 8, 'private'],
  [ip4('100.64.0.0'), 10, 'shared'], // carrier-grade NAT (also Alibaba's 100.100.100.200 metadata)
  [ip4('127.0.0.0'), 8, 'loopback'],
  [ip4('169.254.0.0'), 16, 'link_local'],
  [ip4('172.16.0.0'), 12, 'private'],
  [ip4('192.0.0.0'), 24, 'reserved'], // IETF protocol assignments
  [ip4('192.0.2.0'), 24, 'reserved'], // documentation
  [ip4('192.88.99.0'), 24, 'reserved'], // 6to4 relay
  [ip4('192.168.0.0'), 16, 'private'],
  [ip4('198.18.0.0'), 15, 'reserved'], // benchmarking
  [ip4('198.51.100.0'), 24, 'reserved'], // documentation
  [ip4('203.0.113.0'), 24, 'reserved'], // documentation
  [ip4('224.0.0.0'), 4, 'multicast'],
  [ip4('240.0.0.0'), 4, 'reserved'], // future use and broadcast
];

function ip4(text: string): number {
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function classify4(value: number): AddressClass {
  for (const [base, prefix, kind] of IPV4_RANGES) {
    const size = 2 ** (32 - prefix);
    if (value >= base && value < base + size) return kind;
  }
  return 'public';
}

/** Eight 16-bit groups of an IPv6 address (already validated by isIP). */
function groups6(text: string): number[] {
  let address = text;
  // A dotted IPv4 tail (::ffff:127.0.0.1) becomes two hex groups (::ffff:7f00:1).
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const v = ip4(tail);
    address = `${address.slice(0, lastColon + 1)}${Math.floor(v / 65536).toString(16)}:${(v % 65536).toString(16)}`;
  }
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const gap = address.indexOf('::');
  if (gap === -1) return parse(address);
  const left = parse(address.slice(0, gap));
  const right = parse(address.slice(gap + 2));
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function classify6(g: number[]): AddressClass {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded4 = (hi: number, lo: number) => classify4(g[hi]! * 65536 + g[lo]!);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded4(6, 7); // IPv4-mapped ::ffff:a.b.c.d
  if (zeroUpTo(6)) return embedded4(6, 7); // IPv4-compatible ::a.b.c.d (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded4(6, 7); // NAT64
  if (g[0] === 0x2002) return embedded4(1, 2); // 6to4 carries an IPv4 address
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return 'metadata'; // AWS instance metadata over IPv6
  }
  const top = g[0]!;
  if ((top & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((top & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((top & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((top & 0xff00) === 0xff00) return 'multicast';
  if (top === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if (top === 0x2001 && g[1]! < 0x0200) return 'reserved'; // 2001::/23 IETF assignments, Teredo
  if ((top & 0xe000) !== 0x2000) return 'reserved'; // only 2000::/3 is global unicast
  return 'public';
}

/** What kind of address this is. Only 'public' may receive webhooks (outside development). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classify4(ip4(bare));
  if (family === 6) return classify6(groups6(bare.toLowerCase()));
  return 'invalid';
}

export function describeAddressClass(kind: AddressClass): string {
  return {
    public: 'a public address',
    loopback: 'a loopback address',
    private: 'a private network address',
    link_local: 'a link-local address',
    metadata: 'a cloud metadata address',
    shared: 'a shared (carrier-grade NAT) address',
    unspecified: 'an unspecified address',
    multicast: 'a multicast address',
    reserved: 'a reserved address',
    invalid: 'not an IP address',
  }[kind];
}

export interface UrlPolicy {
  /** NODE_ENV=production: https only, whatever else is set */
  production: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_URLS (development and tests): http and non-public addresses allowed */
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/**
 * The rules a receiver URL must meet before any address is looked at: absolute https (http only
 * when private URLs are allowed, never in production), no credentials, no fragment, and no name
 * that means this machine. Returns the normalised URL.
 */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlCheck {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute URL such as https://example.org/webhooks' };
  }
  const httpAllowed = policy.allowPrivate && !policy.production;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    return {
      ok: false,
      message: httpAllowed ? 'must use http or https' : 'must use https',
    };
  }
  if (url.username || url.password) {
    return { ok: false, message: 'must not carry a user name or password (they would show in lists)' };
  }
  if (url.hash) return { ok: false, message: 'must not have a #fragment' };
  if (!url.hostname) return { ok: false, message: 'must name a host' };
  if (!policy.allowPrivate || policy.production) {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return { ok: false, message: 'must not point at this machine (localhost)' };
    }
    if (isIP(host)) {
      const kind = classifyAddress(host);
      if (kind !== 'public') return { ok: false, message: `must not point at ${describeAddressClass(kind)}` };
    }
  }
  return { ok: true, url };
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** The first resolved address that is not public, or null when all are (or private ones are allowed). */
export function firstForbiddenAddress(
  addresses: ResolvedAddress[],
  policy: UrlPolicy,
): { address: string; kind: AddressClass } | null {
  if (policy.allowPrivate && !policy.production) return null;
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public') return { address, kind };
  }
  return null;
}
