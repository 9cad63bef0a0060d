// A webhook receiver for local development: verifies each delivery with the Standard Webhooks
// library against the raw body, answers at once, skips a webhook-id it has already handled, and
// prints what it got. Run: WEBHOOK_SECRET=whsec_... node docs/partners/examples/receiver.mjs
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const port = Number(process.env.RECEIVER_PORT ?? 3000);
const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the whsec_... secret of your webhook endpoint.');
  process.exit(1);
}
const webhook = new Webhook(secret);
// Delivery is at least once: remember what was handled (a database table in a real receiver).
const handled = new Set();

createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/webhooks') {
    response.writeHead(404).end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(body, request.headers);
    } catch (error) {
      console.log(`rejected: ${error.message}`);
      response.writeHead(400).end();
      return;
    }
    response.writeHead(204).end();
    const id = request.headers['webhook-id'];
    if (handled.has(id)) return;
    handled.add(id);
    const about = event.type === 'order.paid' ? `${event.data.id} ${event.data.status}` : '';
    console.log(`verified ${event.type} ${about} (webhook-id ${id})`);
  });
}).listen(port, () => console.log(`receiver listening on http://localhost:${port}/webhooks`));
