// The app's pages through @fastify/compress: gzip when the browser takes it and the page is worth
// it, Vary on the encoding either way, and the hashed assets left as they were encoded at start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { APP_STYLES } from '../../src/app/app-assets.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { makeMember, signIn, type Agent } from './app-helpers.ts';

let h: Harness;
let owner: Agent;

before(async () => {
  h = await startHarness();
  const partner = await makePartner(h);
  owner = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
});
after(() => h.close());

/** A GET as the signed-in owner, with the bytes as sent. */
function fetchRaw(url: string, headers: Record<string, string> = {}) {
  return h.service.app.inject({
    url,
    remoteAddress: owner.ip,
    headers: { cookie: owner.cookieHeader(), ...headers },
  });
}

describe('page compression', () => {
  test('a page is gzipped for a browser that takes gzip, and reads back the same', async () => {
    const plain = await fetchRaw('/developers');
    const zipped = await fetchRaw('/developers', { 'accept-encoding': 'gzip, deflate' });
    assert.equal(plain.statusCode, 200);
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers.vary), /accept-encoding/i);
    assert.ok(zipped.rawPayload.length < plain.rawPayload.length);
    const strip = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, '');
    assert.equal(strip(gunzipSync(zipped.rawPayload).toString('utf8')), strip(plain.body));
  });

  test('without gzip in Accept-Encoding (or with q=0) the page goes out plain, still with Vary', async () => {
    for (const accept of [undefined, 'identity', 'gzip;q=0', 'br']) {
      const res = await owner.get('/developers', accept === undefined ? {} : { 'accept-encoding': accept });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-encoding'], undefined, String(accept));
      assert.match(String(res.headers.vary), /accept-encoding/i, String(accept));
      assert.match(res.body, /<html/);
    }
  });

  test('error pages are compressed like any page', async () => {
    const res = await fetchRaw('/orders/ord_ZZZZZZZZZZZZZZZZZZZZZZZZ', { 'accept-encoding': 'gzip' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(res.rawPayload).toString('utf8'), /<html/);
  });

  test('hashed assets keep the encoding made at start, once', async () => {
    const res = await h.service.app.inject({ url: APP_STYLES.path, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.headers.vary, 'Accept-Encoding');
    assert.deepEqual(res.rawPayload, APP_STYLES.gzip);
  });

  test('a reply under the threshold goes out plain, with Vary', async () => {
    // a sign-out redirect has an empty body (last: it ends the session)
    const res = await owner.post('/sign-out', {}, { 'accept-encoding': 'gzip' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(String(res.headers.vary), /accept-encoding/i);
  });
});
