// The service in-process for the measuring scripts (npm run size, npm run budget): an in-memory
// database, the payment simulator, and the site's rate limit raised so that repeated page loads
// never meet a 429. Listening (for a browser) binds loopback only, on free ports.
import { createServer } from 'node:net';
import { insertApiClient } from '../src/auth/clients.ts';
import { ALL_SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { createOrganization } from '../src/organizations/organizations.ts';
import { OffsetClock } from '../src/platform/clock.ts';
import { createService, type Service } from '../src/service.ts';

/** The partner's shop: its allowed domain and the origin of the sessions' return URLs. */
export const SHOP = 'https://shop.example.org';

export interface ScriptService {
  service: Service;
  clock: OffsetClock;
  /** the hosts' loopback URLs when started with `listen`, else null (inject only) */
  urls: { api: string; site: string; app: string } | null;
}

/** `count` distinct free loopback ports, bound to 0 together, read, then released. */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolve(typeof address === 'object' && address ? address.port : 0);
          });
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
}

async function startOnce(listen: boolean): Promise<ScriptService> {
  const urls = listen
    ? await freePorts(3).then(([api, site, app]) => ({
        api: `http://127.0.0.1:${api}`,
        site: `http://127.0.0.1:${site}`,
        app: `http://127.0.0.1:${app}`,
      }))
    : null;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    SEED_DEMO: 'false',
    PAYMENT_PROVIDER: 'simulator',
    PAYMENT_TIME_SCALE: '0.01',
    RATE_LIMIT_SITE_RATE: '1000',
    RATE_LIMIT_SITE_BURST: '1000',
    ...(urls && { API_URL: urls.api, SITE_URL: urls.site, APP_URL: urls.app }),
  });
  const clock = new OffsetClock();
  const service = await createService(config, { clock });
  if (urls) {
    try {
      await service.listen();
    } catch (error) {
      await service.close();
      throw error;
    }
  }
  return { service, clock, urls };
}

export async function startScriptService(options: { listen?: boolean } = {}): Promise<ScriptService> {
  // A port released by freePorts can be taken by another process before the service binds it.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.listen ?? false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
    }
  }
}

/** An organization taking payments, its API client with every scope, and a bearer token. */
export async function makeScriptPartner(
  service: Service,
  names: { organization: string; client: string },
): Promise<{ organizationId: string; token: string }> {
  const db = service.ctx.database.db;
  const org = await createOrganization(db, {
    name: names.organization,
    paymentsEnabled: true,
    supportEmail: 'help@example.org',
  });
  const { client, clientSecret } = await insertApiClient(db, {
    organizationId: org.id,
    name: names.client,
    scopes: [...ALL_SCOPES],
    allowedDomains: [SHOP],
    returnUrlDomains: [SHOP],
  });
  const res = await service.api.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: client.id, client_secret: clientSecret },
  });
  if (res.statusCode !== 200) throw new Error(`token request answered ${res.statusCode}`);
  return { organizationId: org.id, token: res.json().access_token as string };
}

/** A redirect checkout session made through the partner API (POST /v1/checkout-sessions). */
export async function createRedirectSession(
  service: Service,
  options: { token: string; eventId: string; prefill?: Record<string, string> },
): Promise<{ id: string; url: string }> {
  const res = await service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: { authorization: `Bearer ${options.token}` },
    payload: {
      event_id: options.eventId,
      on_success_url: `${SHOP}/thanks`,
      on_cancel_url: `${SHOP}/race`,
      ...(options.prefill && { prefill: options.prefill }),
    },
  });
  if (res.statusCode !== 201) {
    throw new Error(`POST /v1/checkout-sessions answered ${res.statusCode}: ${res.body}`);
  }
  const { id, url } = res.json().data as { id: string; url: string };
  return { id, url };
}
