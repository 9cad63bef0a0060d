// One parser decides what a partner credential is (src/auth/credentials.ts): every form the API
// host would take is refused on the SITE and APP hosts, on every path, and nothing else is.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import {
  carriesPartnerCredential,
  parseAuthorization,
  readRequestCredentials,
} from '../../src/auth/credentials.ts';
import {
  getToken,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

let h: Harness;
let partner: TestPartner;
let token: string;
before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  token = await getToken(h, partner);
});
after(() => h.close());

const base64 = (text: string) => Buffer.from(text).toString('base64');
/** Every character percent-encoded, as a strict form-URL-encoder may do. */
const percentEncoded = (text: string) =>
  [...Buffer.from(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

type Headers = Record<string, string | string[]>;

/** Sends one request of raw header lines and returns the whole answer (the server closes). */
function rawRequest(hostname: string, port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, hostname, () => {
      socket.end(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** Every way a partner credential may be sent, each by name. */
function partnerForms(): Array<[string, Headers]> {
  const { clientId, clientSecret, publishableKey } = partner;
  return [
    ['bearer token', { authorization: `Bearer ${token}` }],
    ['bearer token after a tab', { authorization: `Bearer\t${token}` }],
    ['bearer token after several spaces', { authorization: `Bearer    ${token}` }],
    ['bearer token after spaces and tabs', { authorization: `Bearer \t ${token}` }],
    ['lower-case scheme', { authorization: `bearer ${token}` }],
    ['upper-case scheme', { authorization: `BEARER ${token}` }],
    ['an invalid access token', { authorization: 'Bearer pat_invalid' }],
    ['an invalid access token after a tab', { authorization: 'bearer\tpat_invalid' }],
    ['a publishable key as a bearer token', { authorization: `Bearer ${publishableKey}` }],
    ['a client secret as a bearer token', { authorization: `Bearer ${clientSecret}` }],
    ['Basic client credentials', { authorization: `Basic ${base64(`${clientId}:${clientSecret}`)}` }],
    [
      'Basic with the client id percent-encoded',
      { authorization: `Basic ${base64(`${percentEncoded(clientId)}:${clientSecret}`)}` },
    ],
    [
      'Basic, lower case, after a tab, both parts encoded',
      {
        authorization: `basic\t${base64(`${encodeURIComponent(clientId).replace(/_/g, '%5F')}:${encodeURIComponent(clientSecret)}`)}`,
      },
    ],
    ['Basic with an unknown client id', { authorization: `Basic ${base64('cli_unknown:sk_nope')}` }],
    ['publishable key header', { 'x-service-publishable-key': publishableKey }],
    ['publishable key header with an invalid key', { 'x-service-publishable-key': 'pk_invalid' }],
    ['publishable key header with any value', { 'x-service-publishable-key': 'not a key' }],
    ['publishable key header sent twice', { 'x-service-publishable-key': [publishableKey, 'pk_other'] }],
    [
      'Authorization sent twice, the partner token second',
      { authorization: ['Bearer adm_other', `Bearer ${token}`] },
    ],
    [
      'Authorization sent twice, the partner token first',
      { authorization: [`Bearer ${token}`, 'Basic Zm9vOmJhcg=='] },
    ],
  ];
}

const PATHS: Array<['GET' | 'POST', string]> = [
  ['GET', '/healthz'],
  ['GET', '/v1/checkout.js'],
  ['GET', '/checkout/cs_0123456789abcdefABCD'],
  ['GET', '/no/such/path'],
  ['POST', '/admin/v1/organizations'],
];

describe('one parser for partner credentials', () => {
  test('every partner credential form is refused on SITE and APP, on every path', async () => {
    const hosts = { SITE: h.service.site, APP: h.service.app };
    const forms = partnerForms();
    let cases = 0;
    for (const [hostName, host] of Object.entries(hosts)) {
      for (const [form, headers] of forms) {
        for (const [method, url] of PATHS) {
          const res = await host.inject({ method, url, headers });
          const where = `${hostName} ${method} ${url} with ${form}`;
          assert.equal(res.statusCode, 401, `${where}: ${res.statusCode} ${res.body.slice(0, 120)}`);
          assert.equal(res.json().error_code, 'partner_credential_not_accepted', where);
          assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/, where);
          assert.match(String(res.headers['x-request-id']), /^req_/, where);
          cases++;
        }
      }
    }
    assert.equal(cases, 2 * forms.length * PATHS.length);
  });

  test('requests without a partner credential still work on SITE and APP', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer something-else' },
      { authorization: `Basic ${base64('user:password')}` },
      { authorization: 'Digest username="x"' },
    ]) {
      for (const host of [h.service.site, h.service.app]) {
        const res = await host.inject({ url: '/healthz', headers });
        assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
      }
      const script = await h.service.site.inject({ url: '/v1/checkout.js', headers });
      assert.equal(script.statusCode, 200, JSON.stringify(headers));
    }
    const admin = await h.service.app.inject({
      url: '/admin/v1/organizations',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    assert.equal(admin.statusCode, 200, admin.body);
  });

  test('the API host takes the same bearer forms the other hosts refuse', async () => {
    for (const authorization of [
      `Bearer ${token}`,
      `Bearer\t${token}`,
      `Bearer    ${token}`,
      `bearer ${token}`,
      `BEARER \t${token}`,
    ]) {
      const res = await h.service.api.inject({ url: '/v1/events', headers: { authorization } });
      assert.equal(res.statusCode, 200, `${JSON.stringify(authorization)}: ${res.body}`);
    }
  });

  test('the API host refuses a repeated credential header', async () => {
    const twice = await h.service.api.inject({
      url: '/v1/events',
      headers: { authorization: [`Bearer ${token}`, `Bearer ${token}`] } as Headers,
    });
    assert.equal(twice.statusCode, 401);
    assert.equal(twice.json().error_code, 'invalid_token');
    const keys = await h.service.api.inject({
      url: '/v1/events',
      headers: {
        'x-service-publishable-key': [partner.publishableKey, partner.publishableKey],
        origin: 'https://shop.example.org',
      },
    });
    assert.equal(keys.statusCode, 401);
    assert.equal(keys.json().error_code, 'invalid_key');
  });

  test('on a real connection too, a tab after the scheme or a second Authorization line is seen', async () => {
    const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
    for (const url of [urls.site, urls.app]) {
      const { hostname, port } = new URL(url);
      for (const lines of [
        [`Authorization: Bearer\t${token}`],
        ['Authorization: Bearer adm_other', `Authorization: Bearer ${token}`],
        ['X-Service-Publishable-Key: one', 'x-service-publishable-key: two'],
      ]) {
        const answer = await rawRequest(hostname, Number(port), [
          'GET /healthz HTTP/1.1',
          `Host: ${hostname}`,
          ...lines,
        ]);
        assert.match(answer, /^HTTP\/1\.1 401 /, `${url} ${lines.join(' | ')}`);
        assert.match(answer, /"error_code":"partner_credential_not_accepted"/);
        assert.match(answer, /x-request-id: req_/i);
      }
    }
  });

  test('parseAuthorization reads the scheme in any case and any whitespace after it', () => {
    const table: Array<[string, ReturnType<typeof parseAuthorization>]> = [
      ['Bearer pat_a', { scheme: 'bearer', token: 'pat_a' }],
      ['bEaReR\t\tpat_a', { scheme: 'bearer', token: 'pat_a' }],
      ['Bearer pat_a extra', { scheme: 'bearer', token: 'pat_a extra' }],
      ['Bearer', { scheme: 'other' }],
      ['Bearerpat_a', { scheme: 'other' }],
      ['Token pat_a', { scheme: 'other' }],
      [`Basic ${base64('cli_x:sk_y')}`, { scheme: 'basic', user: 'cli_x' }],
      [`BASIC  ${base64('cli%5Fx%2B:sk_y')}`, { scheme: 'basic', user: 'cli_x+' }],
      [`Basic ${base64('cli+x:s')}`, { scheme: 'basic', user: 'cli x' }],
      [`Basic ${base64('cli_%zz:s')}`, { scheme: 'basic', user: 'cli_%zz' }],
      [`Basic ${base64('no-colon')}`, { scheme: 'basic', user: 'no-colon' }],
    ];
    for (const [value, expected] of table) assert.deepEqual(parseAuthorization(value), expected, value);
  });

  test('readRequestCredentials reads every header line', () => {
    const read = readRequestCredentials({
      headers: {},
      raw: {
        rawHeaders: [
          'Authorization',
          'Bearer adm_x',
          'X-Service-Publishable-Key',
          'pk_a',
          'AUTHORIZATION',
          'Bearer pat_b',
        ],
      },
    });
    assert.deepEqual(read.authorization, [
      { scheme: 'bearer', token: 'adm_x' },
      { scheme: 'bearer', token: 'pat_b' },
    ]);
    assert.deepEqual(read.publishableKeys, ['pk_a']);
    assert.equal(carriesPartnerCredential(read), true);
    const harmless = readRequestCredentials({ headers: { authorization: 'Bearer adm_x' } });
    assert.equal(carriesPartnerCredential(harmless), false);
  });
});
