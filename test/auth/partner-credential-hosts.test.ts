import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getToken, makePartner, startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('partner credentials on the SITE and APP hosts', () => {
  test('are refused with 401 partner_credential_not_accepted on every path, valid or not', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const basic = `Basic ${Buffer.from(`${partner.clientId}:${partner.clientSecret}`).toString('base64')}`;
    const credentials: Record<string, string>[] = [
      { authorization: `Bearer ${token}` },
      { authorization: 'Bearer pat_invalid' },
      { 'x-service-publishable-key': partner.publishableKey },
      { 'x-service-publishable-key': 'pk_invalid' },
      { authorization: basic },
    ];
    for (const host of [h.service.site, h.service.app]) {
      for (const headers of credentials) {
        for (const [method, url] of [
          ['GET', '/'],
          ['GET', '/checkout/cs_123'],
          ['POST', '/admin/v1/organizations'],
          ['GET', '/healthz'],
          ['GET', '/no/such/path'],
        ] as const) {
          const res = await host.inject({ method, url, headers });
          assert.equal(res.statusCode, 401, `${url} ${JSON.stringify(headers)}`);
          const body = res.json();
          assert.equal(body.error_code, 'partner_credential_not_accepted');
          assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
          assert.match(String(res.headers['x-request-id']), /^req_/);
        }
      }
    }
  });

  test('the admin key is still accepted on the APP host', async () => {
    const res = await h.service.app.inject({
      url: '/admin/v1/organizations',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    assert.equal(res.statusCode, 200);
    assert.ok(Array.isArray(res.json().data.organizations ?? res.json().data));
  });
});
