// Slow clients cannot starve the creation routes: a connection that sends a request's headers and
// then its body a byte at a time holds no write-admission place, with or without a credential,
// so legitimate creations still answer at once. Raw sockets on a real port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';

const CREATION_PATHS = ['/v1/checkout-sessions', '/v1/orders'];
const PER_ROUTE = 40;
const SHOP = 'https://shop.example.org';

let h: Harness;
let base: URL;
let partner: TestPartner;
let token: string;
let eventId: string;
let ticketTypeId: string;

before(async () => {
  // Rate limits high enough that 80 requests of one client are never refused for their number.
  h = await startHarness({ env: { RATE_LIMIT_BEARER_RATE: '100000', RATE_LIMIT_BEARER_BURST: '100000' } });
  base = new URL((await h.service.listen({ api: 0, site: 0, app: 0 })).api);
  partner = await makePartner(h);
  token = await getToken(h, partner);
  const event = await makeEvent(h, partner);
  eventId = event.id;
  const detail = await h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) });
  ticketTypeId = detail.json().data.ticket_types[0].ticket_type_id;
});
after(() => h.close());

interface SlowClient {
  socket: Socket;
  /** what the server has answered so far */
  received: string;
}

/** Headers announcing a 60,000-byte body, then its first byte; the rest never comes unless trickled. */
function openSlowClient(path: string, headers: Record<string, string>): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname);
    const client: SlowClient = { socket, received: '' };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (client.received += chunk));
    socket.on('error', () => {}); // destroyed at the end of the test, or closed by the server
    socket.once('connect', () => {
      const lines = [
        `POST ${path} HTTP/1.1`,
        `Host: ${base.host}`,
        'Content-Type: application/json',
        'Content-Length: 60000',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n{`, (error) => (error ? reject(error) : resolve(client)));
    });
    socket.once('error', reject);
  });
}

/** One legitimate creation on each route, each answering 201 within 3 s. */
async function assertCreationsGoThrough() {
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const bodies: Record<string, unknown> = {
    '/v1/checkout-sessions': { event_id: eventId, on_success_url: `${SHOP}/ok`, on_cancel_url: `${SHOP}/no` },
    '/v1/orders': {
      event_id: eventId,
      items: [{ ticket_type_id: ticketTypeId, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    },
  };
  for (const path of CREATION_PATHS) {
    const res = await fetch(new URL(path, base), {
      method: 'POST',
      headers,
      body: JSON.stringify(bodies[path]),
      signal: AbortSignal.timeout(3000),
    });
    assert.equal(res.status, 201, `${path}: ${res.status} ${await res.text()}`);
  }
}

describe('slow clients and the creation routes', () => {
  test('connections without credentials that never finish their bodies block no creation', async () => {
    const clients: SlowClient[] = [];
    try {
      for (const path of CREATION_PATHS) {
        for (let i = 0; i < PER_ROUTE; i++) clients.push(await openSlowClient(path, {}));
      }
      const gate = h.service.ctx.writes;
      // Each is either answered or holding (or waiting for) a write place by now.
      await waitFor(
        'the slow requests to be answered or admitted',
        () => clients.filter((c) => c.received !== '').length + gate.active + gate.waiting >= clients.length,
      );
      await assertCreationsGoThrough();
      // Refused before their bodies were read, in the envelope.
      await waitFor('every slow request to be answered', () =>
        clients.every((c) => /\r\n\r\n/.test(c.received)),
      );
      for (const client of clients) {
        assert.match(client.received, /^HTTP\/1\.1 401 /);
        assert.match(client.received, /www-authenticate: Bearer realm="service-partner"/i);
        assert.match(client.received, /"error_code":"invalid_token"/);
      }
      assert.equal(gate.active, 0);
    } finally {
      for (const client of clients) client.socket.destroy();
    }
  });

  test('authenticated requests whose bodies trickle hold no write place while their bodies arrive', async () => {
    const clients: SlowClient[] = [];
    const limiter = h.service.ctx.limiter;
    const hit = limiter.hit.bind(limiter);
    let authenticated = 0;
    limiter.hit = (key, setting) => {
      if (key === `bearer:${partner.clientId}`) authenticated++;
      return hit(key, setting);
    };
    const trickle = setInterval(() => {
      for (const client of clients) client.socket.write(' ');
    }, 200);
    try {
      for (const path of CREATION_PATHS) {
        for (let i = 0; i < PER_ROUTE; i++) clients.push(await openSlowClient(path, bearer(token)));
      }
      const gate = h.service.ctx.writes;
      // Each has been authenticated (before its body) or holds or awaits a write place.
      await waitFor(
        'the trickling requests to be authenticated or admitted',
        () => authenticated + gate.active + gate.waiting >= clients.length,
      );
      await assertCreationsGoThrough();
      assert.equal(gate.active, 0, 'no write place is held by a body still arriving');
      assert.ok(
        clients.every((c) => c.received === ''),
        'the trickling requests are still being read',
      );
    } finally {
      clearInterval(trickle);
      limiter.hit = hit;
      for (const client of clients) client.socket.destroy();
    }
  });
});
