// The simulator as a provider: it checks credentials and the headers each contract requires, so an
// adapter that forgets one fails here as it would against MTN or Airtel. Also `npm run simulator`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startSimulator, timeScaleFrom, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { createAirtelProvider } from '../../src/payments/methods/airtel/airtel.ts';
import { createMtnMomoProvider } from '../../src/payments/methods/momo/mtn-momo.ts';
import { msisdnFor, paymentRequest, sleep } from './payments-helpers.ts';
import { AIRTEL_SIM_CREDENTIALS } from '../../src/payments/methods/airtel/sim-credentials.ts';
import { MTN_SIM_CREDENTIALS } from '../../src/payments/methods/momo/sim-credentials.ts';

const MAIN = fileURLToPath(new URL('../../src/payments/simulator/main.ts', import.meta.url));
const mtn = MTN_SIM_CREDENTIALS;
const airtel = AIRTEL_SIM_CREDENTIALS;

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ timeScale: 0.01, tokenTtlSeconds: 2 });
});
after(() => sim.close());

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${sim.url}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: body as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

async function mtnToken(): Promise<string> {
  const { status, body } = await call('/mtn/collection/token/', {
    method: 'POST',
    headers: {
      Authorization: basic(mtn.apiUser, mtn.apiKey),
      'Ocp-Apim-Subscription-Key': mtn.subscriptionKey,
    },
  });
  assert.equal(status, 200);
  return body.access_token;
}

async function airtelToken(): Promise<string> {
  const { status, body } = await call('/airtel/auth/oauth2/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_id: airtel.clientId,
      client_secret: airtel.clientSecret,
      grant_type: 'client_credentials',
    }),
  });
  assert.equal(status, 200);
  return body.access_token;
}

const mtnBody = (partyId = '256770000001') => ({
  amount: '1500',
  currency: 'UGX',
  externalId: 'x',
  payer: { partyIdType: 'MSISDN', partyId },
  payerMessage: 'm',
  payeeNote: 'n',
});

describe('MTN contract', () => {
  test('token: 200 with a numeric expires_in; wrong subscription key or API key is 401', async () => {
    const ok = await call('/mtn/collection/token/', {
      method: 'POST',
      headers: {
        Authorization: basic(mtn.apiUser, mtn.apiKey),
        'Ocp-Apim-Subscription-Key': mtn.subscriptionKey,
      },
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.equal(ok.body.expires_in, 2);
    const refused: Record<string, string>[] = [
      { Authorization: basic(mtn.apiUser, 'wrong'), 'Ocp-Apim-Subscription-Key': mtn.subscriptionKey },
      { Authorization: basic(mtn.apiUser, mtn.apiKey), 'Ocp-Apim-Subscription-Key': 'wrong' },
      { 'Ocp-Apim-Subscription-Key': mtn.subscriptionKey },
    ];
    for (const headers of refused) {
      assert.equal((await call('/mtn/collection/token/', { method: 'POST', headers })).status, 401);
    }
  });

  test('request to pay checks every required header', async () => {
    const token = await mtnToken();
    const good = {
      Authorization: `Bearer ${token}`,
      'X-Reference-Id': randomUUID(),
      'X-Target-Environment': mtn.targetEnvironment,
      'Ocp-Apim-Subscription-Key': mtn.subscriptionKey,
      'Content-Type': 'application/json',
    };
    const without = (name: string, value?: string) => {
      const headers: Record<string, string> = { ...good, 'X-Reference-Id': randomUUID() };
      if (value === undefined) delete headers[name];
      else headers[name] = value;
      return headers;
    };
    const CASES: [string, Record<string, string>, number][] = [
      ['no bearer token', without('Authorization'), 401],
      ['an unknown token', without('Authorization', 'Bearer nope'), 401],
      ['no subscription key', without('Ocp-Apim-Subscription-Key'), 401],
      ['no target environment', without('X-Target-Environment'), 403],
      ['no reference id', without('X-Reference-Id'), 400],
      ['a reference id that is not a UUID v4', without('X-Reference-Id', 'ord_1'), 400],
      ['a callback URL that is not a URL', without('X-Callback-Url', 'not a url'), 400],
    ];
    for (const [name, headers, status] of CASES) {
      const response = await call('/mtn/collection/v1_0/requesttopay', {
        method: 'POST',
        headers,
        body: JSON.stringify(mtnBody()),
      });
      assert.equal(response.status, status, name);
    }
    const accepted = await call('/mtn/collection/v1_0/requesttopay', {
      method: 'POST',
      headers: good,
      body: JSON.stringify(mtnBody()),
    });
    assert.equal(accepted.status, 202);
  });

  test('request to pay validates the body', async () => {
    const token = await mtnToken();
    const BAD: Record<string, unknown>[] = [
      { ...mtnBody(), amount: 1500 },
      { ...mtnBody(), amount: '-5' },
      { ...mtnBody(), currency: 'ugx' },
      { ...mtnBody(), payer: { partyIdType: 'EMAIL', partyId: 'a@b.c' } },
      { ...mtnBody(), payerMessage: 'x'.repeat(161) },
    ];
    for (const body of [...BAD.map((b) => JSON.stringify(b)), '{not json']) {
      const response = await call('/mtn/collection/v1_0/requesttopay', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'X-Reference-Id': randomUUID(),
          'X-Target-Environment': mtn.targetEnvironment,
          'Ocp-Apim-Subscription-Key': mtn.subscriptionKey,
        },
        body,
      });
      assert.equal(response.status, 400, body);
    }
  });

  test('an expired token is refused with 401', async () => {
    const token = await mtnToken();
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Target-Environment': mtn.targetEnvironment,
      'Ocp-Apim-Subscription-Key': mtn.subscriptionKey,
    };
    assert.equal((await call(`/mtn/collection/v1_0/requesttopay/${randomUUID()}`, { headers })).status, 404);
    await sleep(2_100);
    assert.equal((await call(`/mtn/collection/v1_0/requesttopay/${randomUUID()}`, { headers })).status, 401);
  });
});

describe('Airtel contract', () => {
  test('token: expires_in is a string; wrong client or grant is refused', async () => {
    const ok = await call('/airtel/auth/oauth2/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_id: airtel.clientId,
        client_secret: airtel.clientSecret,
        grant_type: 'client_credentials',
      }),
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.expires_in, '2');
    const CASES: [Record<string, string>, number][] = [
      [{ client_id: airtel.clientId, client_secret: 'wrong', grant_type: 'client_credentials' }, 401],
      [{ client_id: 'wrong', client_secret: airtel.clientSecret, grant_type: 'client_credentials' }, 401],
      [{ client_id: airtel.clientId, client_secret: airtel.clientSecret, grant_type: 'password' }, 400],
    ];
    for (const [body, status] of CASES) {
      const response = await call('/airtel/auth/oauth2/token', {
        method: 'POST',
        body: JSON.stringify(body),
      });
      assert.equal(response.status, status, JSON.stringify(body));
    }
  });

  test('payments check the bearer token, X-Country, X-Currency and the national msisdn', async () => {
    const token = await airtelToken();
    const body = (msisdn = '700000001') =>
      JSON.stringify({
        reference: 'Order',
        subscriber: { country: 'UG', currency: 'UGX', msisdn },
        transaction: { amount: 1500, country: 'UG', currency: 'UGX', id: randomUUID() },
      });
    const good = { Authorization: `Bearer ${token}`, 'X-Country': 'UG', 'X-Currency': 'UGX' };
    const CASES: [string, Record<string, string>, string, number, string?][] = [
      ['no token', { 'X-Country': 'UG', 'X-Currency': 'UGX' }, body(), 401],
      ['no X-Country', { Authorization: `Bearer ${token}`, 'X-Currency': 'UGX' }, body(), 400],
      ['wrong X-Currency', { ...good, 'X-Currency': 'KES' }, body(), 400],
      ['msisdn with the country code', good, body('256700000001'), 400, 'ESB000033'],
      ['msisdn with a leading 0', good, body('0700000001'), 400, 'ESB000033'],
    ];
    for (const [name, headers, payload, status, resultCode] of CASES) {
      const response = await call('/airtel/merchant/v1/payments/', {
        method: 'POST',
        headers,
        body: payload,
      });
      assert.equal(response.status, status, name);
      assert.equal(response.body.status.success, false, name);
      if (resultCode) assert.equal(response.body.status.result_code, resultCode, name);
    }
    const accepted = await call('/airtel/merchant/v1/payments/', {
      method: 'POST',
      headers: good,
      body: body(),
    });
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.status.success, true);
    assert.equal(accepted.body.status.response_code, 'DP00800001006');
  });

  test('an unknown transaction answers DP00800001025', async () => {
    const token = await airtelToken();
    const response = await call(`/airtel/standard/v1/payments/${randomUUID()}`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Country': 'UG', 'X-Currency': 'UGX' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.status.response_code, 'DP00800001025');
  });
});

describe('test controls', () => {
  test('approve settles a pending payment as successful at once, on both networks; statusQueries counts queries', async () => {
    const providers = {
      momo: createMtnMomoProvider({ ...sim.part('momo').settings, timeoutMs: 5_000 }),
      airtel: createAirtelProvider({ ...sim.part('airtel').settings, timeoutMs: 5_000 }),
    };
    for (const method of ['momo', 'airtel'] as const) {
      const reference = randomUUID();
      const submitted = await providers[method].requestPayment(
        paymentRequest({ reference, msisdn: msisdnFor(method, '09') }), // pending for ever
      );
      assert.equal(submitted.kind, 'submitted');
      assert.equal((await providers[method].getStatus(reference)).status, 'pending');
      assert.equal(sim.approve(reference), true);
      const status = await providers[method].getStatus(reference);
      assert.equal(status.status, 'successful', method);
      assert.equal(sim.statusQueries(reference), 2);
      assert.equal(sim.approve(reference), false, 'no longer pending');
    }
    assert.equal(sim.approve(randomUUID()), false, 'unknown');
    assert.equal(sim.statusQueries(randomUUID()), 0);
  });
});

describe('the server', () => {
  test('unknown paths are 404 and oversized bodies 413, and the server keeps serving', async () => {
    assert.equal((await call('/nowhere')).status, 404);
    assert.equal((await call('/mtn/collection/v2_0/whatever')).status, 404);
    const huge = await fetch(`${sim.url}/airtel/auth/oauth2/token`, {
      method: 'POST',
      body: 'x'.repeat(70 * 1024),
    }).then((r) => r.status);
    assert.equal(huge, 413);
    const info = await call('/');
    assert.equal(info.status, 200);
    assert.equal(info.body.mtn, `${sim.url}/mtn`);
  });

  test('SIMULATOR_TIME_SCALE must be a positive number', () => {
    assert.equal(timeScaleFrom(undefined), 1);
    assert.equal(timeScaleFrom('0.05'), 0.05);
    for (const bad of ['0', '-1', 'fast', 'Infinity'])
      assert.throws(() => timeScaleFrom(bad), /SIMULATOR_TIME_SCALE/);
  });

  test('the time scale is an option only: 1 by default, SIMULATOR_TIME_SCALE is for main.ts', async () => {
    const saved = process.env.SIMULATOR_TIME_SCALE;
    process.env.SIMULATOR_TIME_SCALE = '0.5';
    try {
      const other = await startSimulator();
      const info = await fetch(other.url).then((r) => r.json());
      await other.close();
      assert.equal(info.time_scale, 1);
      const scaled = await startSimulator({ timeScale: 0.25 });
      const scaledInfo = await fetch(scaled.url).then((r) => r.json());
      await scaled.close();
      assert.equal(scaledInfo.time_scale, 0.25);
      await assert.rejects(
        startSimulator({ timeScale: 0 }),
        /SIMULATOR_TIME_SCALE must be a positive number/,
      );
    } finally {
      if (saved === undefined) delete process.env.SIMULATOR_TIME_SCALE;
      else process.env.SIMULATOR_TIME_SCALE = saved;
    }
  });

  test('npm run simulator: prints its URL and the test credentials, and serves', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_TIME_SCALE: '0.05', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 20_000;
      while (!/Test numbers/.test(out) && Date.now() < deadline) await sleep(20);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      assert.ok(url, out);
      assert.match(out, /time scale 0\.05/);
      assert.ok(
        out.includes(mtn.subscriptionKey) && out.includes(airtel.clientSecret),
        'credentials printed',
      );
      assert.match(out, /01 {2}MTN 0770000001 {2}Airtel 0700000001/);
      const info = await fetch(url).then((r) => r.json());
      assert.equal(info.airtel, `${url}/airtel`);
      assert.equal(info.time_scale, 0.05, 'main.ts passes SIMULATOR_TIME_SCALE on');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });

  test('npm run simulator: a bad SIMULATOR_TIME_SCALE fails at start with one clear line', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_TIME_SCALE: 'fast' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(err, /SIMULATOR_TIME_SCALE must be a positive number, got "fast"/);
  });
});
