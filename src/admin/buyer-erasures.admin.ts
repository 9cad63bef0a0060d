// POST /buyer-erasures: the operator erases one buyer's personal data, found by their email, in
// every organization (src/privacy/erase-buyer.ts): `ticketing buyers erase --email`. The answer
// counts what changed and names the erasure as each organization's audit log does; it never
// repeats the address. An address with no data answers zero counts; running it again is harmless.
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { OPERATOR_LABEL } from '../audit/index.ts';
import { Envelope, send, validationError, type Host } from '../platform/index.ts';
import { buyerEmailProblem, countsOut, eraseBuyer } from '../privacy/index.ts';
import { errorResponses } from './admin-schemas.ts';

const BuyerErasureIn = Type.Object(
  {
    email: Type.String({
      maxLength: 254,
      description: "the buyer's email, compared without regard to case; never stored nor answered back",
    }),
  },
  { additionalProperties: false },
);

const Count = (description: string) => Type.Integer({ minimum: 0, description });

const BuyerErasureOut = Type.Object({
  erasure_id: Type.String({ description: 'era_...: the target of the buyer.erased audit entries' }),
  organizations: Type.Integer({ minimum: 0, description: 'organizations whose data changed' }),
  erased: Type.Object({
    orders: Count("orders whose buyer's name, email and phone are now [erased]"),
    registrations: Count("registrations whose participant's name, date of birth and answers went"),
    payment_attempts: Count("payment attempts whose payer's number is now [erased]"),
    order_mails: Count('confirmation mail records whose recipient is now [erased]'),
    checkout_sessions: Count('checkout sessions whose prefill was cleared'),
    webhook_events: Count('webhook event payloads rewritten'),
    webhook_responses: Count("receivers' answers to those events forgotten"),
    stored_responses: Count('stored idempotent responses (last 24 hours) rewritten'),
    development_mails: Count('mails deleted from the development mailbox (never in production)'),
  }),
});

export async function registerBuyerErasureAdminRoutes(admin: Host, ctx: AppContext) {
  admin.post(
    '/buyer-erasures',
    {
      schema: {
        body: BuyerErasureIn,
        response: {
          200: Envelope(BuyerErasureOut, 'Buyer data erased'),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const problem = buyerEmailProblem(request.body.email);
      if (problem) throw validationError([{ field: 'email', message: problem }]);
      const erasure = await eraseBuyer(ctx, {
        email: request.body.email,
        actor: { memberId: null, label: OPERATOR_LABEL, ip: request.ip },
      });
      return send(reply, 200, 'Buyer data erased', {
        erasure_id: erasure.erasureId,
        organizations: erasure.organizations,
        erased: countsOut(erasure.counts),
      });
    },
  );
}
