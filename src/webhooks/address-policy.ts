// Where webhooks may go. A receiver URL is a partner's input and we POST to it from inside our
// network, so it must not reach loopback, private, link-local or cloud metadata addresses (SSRF).
// Pure functions: the address classifier, the URL rules, and the check of resolved addresses.
// The ranges are ipaddr.js's table of special-purpose addresses (IANA's registries); this file
// only says what each of its names means here, and where we answer otherwise.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/** Checked before the library's names: ranges we single out or answer differently for. */
const OVERRIDES: Parameters<typeof ipaddr.subnetMatch>[1] = {
  // AWS, GCP, Azure and OpenStack instance metadata (link-local to the library), and AWS's over IPv6
  // (unique local): named apart so that the refusal says what it protects.
  metadata: [ipaddr.parseCIDR('169.254.169.254/32'), ipaddr.parseCIDR('fd00:ec2::254/128')],
  // IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, ...), all of it: the library names
  // its parts one by one, and its as112v6 name also covers a public range outside this block.
  reserved: ipaddr.parseCIDR('2001::/23'),
};

/**
 * What each IPv4 range name of ipaddr.js means here. A name not listed is 'reserved', so a range
 * that a newer version names is refused until it is listed.
 */
const IPV4_NAMES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified', // 0.0.0.0/8
  broadcast: 'reserved',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'shared', // 100.64.0.0/10, also Alibaba's 100.100.100.200 metadata
  private: 'private',
  reserved: 'reserved', // IETF assignments, documentation, 6to4 relay, benchmarking, 240/4
  // Anycast services on the public internet (DNS sinks, multicast relays): public, as unicast is.
  as112: 'public',
  amt: 'public',
};

/** What each IPv6 range name of ipaddr.js means here; a name not listed is 'reserved'. */
const IPV6_NAMES: Record<string, AddressClass> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local',
  multicast: 'multicast',
  uniqueLocal: 'private', // fc00::/7
  deprecatedSiteLocal: 'private', // fec0::/10, still routed privately by some networks
  as112v6: 'public', // 2620:4f:8000::/48, anycast DNS (its 2001:4:112::/48 half is an override)
};

/** The forms that carry an IPv4 address, whose class is that address's. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96'); // deprecated ::a.b.c.d
/** Only 2000::/3 is allocated for global unicast; the rest of the unnamed space is not. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function override(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass | undefined {
  const name = ipaddr.subnetMatch(address, OVERRIDES, 'none');
  return name === 'none' ? undefined : (name as AddressClass);
}

function classify4(address: ipaddr.IPv4): AddressClass {
  return override(address) ?? IPV4_NAMES[address.range()] ?? 'reserved';
}

/** The IPv4 address in two 16-bit groups of an IPv6 address. */
function embedded4(hi: number, lo: number): AddressClass {
  return classify4(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
}

function classify6(address: ipaddr.IPv6): AddressClass {
  const known = override(address);
  if (known) return known;
  const g = address.parts;
  const carried = (hi: number, lo: number) => embedded4(g[hi]!, g[lo]!);
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
      return carried(6, 7);
    case '6to4': // 2002:AABB:CCDD::/48
      return carried(1, 2);
    case 'rfc6052': // NAT64; where the local-use prefix 64:ff9b:1::/48 puts the address varies
      return address.match(NAT64_WELL_KNOWN) ? carried(6, 7) : 'reserved';
    case 'unicast':
      if (address.match(IPV4_COMPATIBLE)) return carried(6, 7);
      return address.match(GLOBAL_UNICAST) ? 'public' : 'reserved';
  }
  return IPV6_NAMES[range] ?? 'reserved';
}

/** What kind of address this is. Only 'public' may receive webhooks (outside development). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // node's isIP first: ipaddr.js also reads shorthand and octal forms (010.1, 0x7f.1) that are
  // not addresses in a resolver's answer.
  try {
    const family = isIP(bare);
    if (family === 4) return classify4(ipaddr.IPv4.parse(bare));
    // In hex groups first (the URL parser's canonical form): ipaddr.js reads ::a.b.c.d as
    // ::ffff:a.b.c.d, which would make ::0.0.0.1 (that is, ::1) an unspecified address.
    if (family === 6) return classify6(ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1)));
  } catch {
    // a form node accepts and the library does not: refused below
  }
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

/** What to do instead, added to the refusals of local URLs. */
const LOCAL_HINT =
  '; webhooks go to public receivers only (a service in development, NODE_ENV=development, accepts local http URLs)';

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
      message: httpAllowed ? 'must use http or https' : `must use https${LOCAL_HINT}`,
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
      return { ok: false, message: `must not point at this machine (localhost)${LOCAL_HINT}` };
    }
    if (isIP(host)) {
      const kind = classifyAddress(host);
      if (kind !== 'public') {
        return { ok: false, message: `must not point at ${describeAddressClass(kind)}${LOCAL_HINT}` };
      }
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
