// The SSRF guard's pure parts: which addresses are public, and which URLs may be registered.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  checkWebhookUrl,
  classifyAddress,
  firstForbiddenAddress,
  type AddressClass,
} from '../../src/webhooks/address-policy.ts';

describe('classifyAddress', () => {
  const table: [string, AddressClass][] = [
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    // private (RFC 1918) and unique local IPv6
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    // link-local, with the metadata address singled out
    ['169.254.0.1', 'link_local'],
    ['169.254.255.255', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    // carrier-grade NAT
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['100.100.100.200', 'shared'],
    // IPv4-mapped, -compatible, NAT64 and 6to4 forms carry the IPv4 address's class
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:192.168.1.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    // unspecified, multicast, reserved
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'reserved'],
    // the edges of each range are public
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.169.0.0', 'public'],
    ['fbff:ffff::1', 'reserved'],
    ['fe00::1', 'reserved'],
    // where the answer is ours rather than the range library's, or the library's text reading
    ['::0.0.0.1', 'loopback'],
    ['2001:3::1', 'reserved'],
    ['2001:4:112::1', 'reserved'],
    ['64:ff9b:1::a00:1', 'reserved'],
    ['::ffff:0:a00:1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['192.175.48.1', 'public'],
    ['2620:4f:8000::1', 'public'],
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.216.34', 'public'],
    ['223.255.255.255', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:82a::200e', 'public'],
    // not addresses
    ['localhost', 'invalid'],
    ['example.org', 'invalid'],
    ['999.1.1.1', 'invalid'],
    ['', 'invalid'],
  ];
  for (const [address, expected] of table) {
    test(`${address || '(empty)'} is ${expected}`, () => assert.equal(classifyAddress(address), expected));
  }

  test('every IPv4 address has the same class as its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        assert.equal(classifyAddress(`::ffff:${v4}`), classifyAddress(v4));
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        assert.equal(classifyAddress(hex), classifyAddress(v4));
      }),
    );
  });

  test('every address in 10/8, 172.16/12, 192.168/16, 127/8 and 169.254/16 is refused', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, octet, (x, y, z) => {
        for (const address of [
          `10.${x}.${y}.${z}`,
          `172.${16 + (x % 16)}.${y}.${z}`,
          `192.168.${y}.${z}`,
          `127.${x}.${y}.${z}`,
          `169.254.${y}.${z}`,
          `100.${64 + (x % 64)}.${y}.${z}`,
        ]) {
          assert.notEqual(classifyAddress(address), 'public', address);
        }
      }),
    );
  });
});

describe('checkWebhookUrl', () => {
  const strict = { production: false, allowPrivate: false };
  const dev = { production: false, allowPrivate: true };
  const production = { production: true, allowPrivate: true };

  const refused: [string, typeof strict, RegExp][] = [
    ['http://127.0.0.1/hooks', strict, /https/],
    ['https://127.0.0.1/hooks', strict, /loopback/],
    ['https://[::1]/hooks', strict, /loopback/],
    ['https://[::ffff:127.0.0.1]/hooks', strict, /loopback/],
    ['https://2130706433/hooks', strict, /loopback/], // 127.0.0.1 as one number
    ['https://0x7f.1/hooks', strict, /loopback/],
    ['https://169.254.169.254/latest/meta-data', strict, /metadata/],
    ['https://10.0.0.5/', strict, /private/],
    ['https://localhost/hooks', strict, /localhost/],
    ['https://api.localhost/hooks', strict, /localhost/],
    ['http://example.org/hooks', strict, /https/],
    ['http://example.org/hooks', production, /https/],
    ['http://127.0.0.1:3000/hooks', production, /https/],
    ['ftp://example.org/', dev, /http/],
    ['example.org/hooks', strict, /absolute/],
    ['', strict, /absolute/],
    ['https://user:pass@example.org/hooks', strict, /password/],
    ['https://example.org/hooks#x', strict, /fragment/],
    [`https://example.org/${'a'.repeat(2048)}`, strict, /2048/],
  ];
  for (const [url, policy, message] of refused) {
    test(`refuses ${url.slice(0, 60) || '(empty)'} (${JSON.stringify(policy)})`, () => {
      const result = checkWebhookUrl(url, policy);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, message);
    });
  }

  const accepted: [string, typeof strict][] = [
    ['https://example.org/hooks', strict],
    ['https://example.org:8443/hooks?x=1', strict],
    ['https://93.184.216.34/hooks', strict],
    ['https://example.org/hooks', production],
    ['http://127.0.0.1:3000/hooks', dev],
    ['http://localhost:3000/hooks', dev],
    ['https://[::1]:8443/hooks', dev],
  ];
  for (const [url, policy] of accepted) {
    test(`accepts ${url} (${JSON.stringify(policy)})`, () =>
      assert.equal(checkWebhookUrl(url, policy).ok, true));
  }
});

describe('firstForbiddenAddress', () => {
  test('one forbidden address among public ones refuses the host', () => {
    const policy = { production: false, allowPrivate: false };
    assert.deepEqual(
      firstForbiddenAddress(
        [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.1', family: 4 },
        ],
        policy,
      ),
      { address: '10.0.0.1', kind: 'private' },
    );
    assert.equal(firstForbiddenAddress([{ address: '2606:4700:4700::1111', family: 6 }], policy), null);
  });

  test('private addresses pass only when allowed, and never in production', () => {
    const loopback = [{ address: '127.0.0.1', family: 4 }];
    assert.equal(firstForbiddenAddress(loopback, { production: false, allowPrivate: true }), null);
    assert.notEqual(firstForbiddenAddress(loopback, { production: true, allowPrivate: true }), null);
  });
});
