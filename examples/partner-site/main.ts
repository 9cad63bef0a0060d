// `npm run example`: the partner site against the local service (`npm run dev` first).
// Credentials come from the environment, else from the demo organization the service seeds on
// its first start (DATA_DIR/demo.json), whose publishable key allows http://127.0.0.1:5173 and
// http://localhost:5173.
//
//   PARTNER_URL      this site's origin            (default http://127.0.0.1:5173)
//   SERVICE_API_URL  the service's API_URL         (default API_URL or http://127.0.0.1:4000)
//   SERVICE_SITE_URL the service's SITE_URL        (default SITE_URL or http://localhost:4001)
//   CLIENT_ID, CLIENT_SECRET, PUBLISHABLE_KEY      (default from demo.json)
//   EVENT_ID         the event to sell             (default: the first on sale with a paid ticket)
//   WEBHOOK_SECRET   whsec_ secret of this site's webhook endpoint (POST <PARTNER_URL>/webhooks)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPartnerSite } from './server.ts';

interface Demo {
  client_id?: string;
  client_secret?: string;
  publishable_key?: string;
}

function readDemo(): Demo {
  const file = join(process.env.DATA_DIR || '.data', 'demo.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Demo) : {};
}

const env = process.env;
const demo = readDemo();
const clientId = env.CLIENT_ID || demo.client_id;
const clientSecret = env.CLIENT_SECRET || demo.client_secret;
const publishableKey = env.PUBLISHABLE_KEY || demo.publishable_key;
if (!clientId || !clientSecret || !publishableKey) {
  console.error(
    'Set CLIENT_ID, CLIENT_SECRET and PUBLISHABLE_KEY, or start the service once (npm run dev) so it seeds the demo organization into .data/demo.json.',
  );
  process.exit(2);
}

const site = await startPartnerSite({
  url: env.PARTNER_URL || 'http://127.0.0.1:5173',
  apiUrl: env.SERVICE_API_URL || env.API_URL || 'http://127.0.0.1:4000',
  siteUrl: env.SERVICE_SITE_URL || env.SITE_URL || 'http://localhost:4001',
  clientId,
  clientSecret,
  publishableKey,
  ...(env.EVENT_ID && { eventId: env.EVENT_ID }),
  ...(env.WEBHOOK_SECRET && { webhookSecret: env.WEBHOOK_SECRET }),
  onWebhook: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(
  `Partner site on ${site.url} selling event ${site.eventId}. Pay with 0770000001 (simulator: success).\n` +
    (env.WEBHOOK_SECRET
      ? `Verified webhooks to ${site.url}/webhooks are printed here.\n`
      : 'No WEBHOOK_SECRET: webhooks are not received (see examples/partner-site/README.md).\n'),
);
const stop = () => void site.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
