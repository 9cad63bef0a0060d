// Shared by the ticket tests: a paid order of several runners, and the confirmation mail the
// development mailbox keeps for an order.
import assert from 'node:assert/strict';
import { listDevMail, DEV_MAIL_LIST_MAX, type DevMailRow } from '../../src/mail/mailbox.ts';
import { bearer, type Harness } from '../helpers/harness.ts';
import { pump, pumpFor, type Shop } from '../webhooks/webhook-helpers.ts';

/** A free order of these runners through the partner API: paid at once, its order.paid queued. */
export async function freeOrderOf(h: Harness, shop: Shop, runners: string[]) {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(shop.token),
    payload: {
      event_id: shop.eventId,
      items: runners.map((name) => ({ ticket_type_id: shop.freeTicket, participant_name: name })),
      buyer: { name: runners[0], email: 'runner@example.org', phone: '0772123456' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const order = res.json().data as { id: string; order_code: string; status: string };
  assert.equal(order.status, 'paid');
  return order;
}

/** Runs jobs until the order's confirmation is kept in the development mailbox; returns it. */
export async function confirmationMail(h: Harness, code: string): Promise<DevMailRow> {
  const db = h.service.ctx.database.db;
  const find = async () =>
    (await listDevMail(db, DEV_MAIL_LIST_MAX)).filter((m) => m.subject.includes(`(order ${code})`));
  await pump(h, async () => (await find()).length > 0);
  await pumpFor(h, 100);
  const mails = await find();
  assert.equal(mails.length, 1, 'one confirmation');
  return mails[0]!;
}

/** The ticket links of a mail's text part, in the order the runners are listed. */
export function ticketLinks(text: string): string[] {
  return [...text.matchAll(/^ {2}(https?:\/\/\S+\/tickets\/[A-Za-z0-9_-]{32})$/gm)].map((m) => m[1]!);
}
