// GET /orders/:orderId/refund is the refund form: runners to tick (each with what its place gives
// back), or an amount, and a reason; POST with step review shows what would go back, and with step
// confirm refunds through the network that took the payment (the one action the APIs call,
// src/payments/actions/refund-order.ts). Works without a script. Owners and admins only; another
// organization's order is the same 404 page. A refusal changes nothing: an amount or runners that
// cannot be honoured is the form again with why (422); an order not paid, refunded or being
// refunded is the order page with its message (409).
import type { AppContext } from '../../context.ts';
import { findOrder } from '../../orders/index.ts';
import { previewOrderRefund, refundOrder, type RefundOrderOptions } from '../../payments/index.ts';
import { ApiError, currencyExponent } from '../../platform/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { formOf, type FieldErrors, type FormBody } from '../form-body.ts';
import { renderRefundConfirmation, renderRefundForm, type RefundFormValues } from '../views/order-pages.ts';
import { orderPage } from './order-detail.ts';
import { OrderParams, paramsOf } from '../app-input.ts';

/** The order of the request, within the member's organization (the route needs the refunds permission). */
export async function refundableOrder(ctx: AppContext, request: Parameters<Handler>[0]) {
  const current = memberOf(request);
  const { orderId } = paramsOf(request, OrderParams);
  const order = await findOrder(ctx.database.db, current.organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  return order;
}

/** The refund form as posted: runners ticked, an amount in major units, a reason; with what is wrong. */
function readRefundForm(body: FormBody, currency: string) {
  const values: RefundFormValues = {
    runners: [...new Set(body.all('runners').map((id) => id.slice(0, 64)))].slice(0, 10),
    amount: (body.get('amount') ?? '').trim().slice(0, 30),
    reason: (body.get('reason') ?? '').trim().slice(0, 600),
  };
  const errors: FieldErrors = {};
  let amountMinor: number | undefined;
  if (values.amount !== '') {
    const exponent = currencyExponent(currency);
    const typed = values.amount.replace(/[\s,]/g, '');
    const shape = exponent === 0 ? /^\d{1,10}$/ : new RegExp(`^\\d{1,10}(\\.\\d{1,${exponent}})?$`);
    amountMinor = shape.test(typed) ? Math.round(Number(typed) * 10 ** exponent) : undefined;
    if (amountMinor === undefined || amountMinor < 1) {
      errors.amount = `Enter the amount as a number of ${currency} above 0, such as 20000, or leave it empty.`;
    }
  }
  if (values.reason === '') errors.reason = 'Enter the reason for the refund.';
  else if (values.reason.length > 500) errors.reason = 'Keep the reason to 500 characters.';
  const asked = {
    amountMinor,
    registrationIds: values.runners.length > 0 ? values.runners : undefined,
  };
  return { values, errors, asked };
}

const EMPTY_FORM: RefundFormValues = { runners: [], amount: '', reason: '' };

/** GET: the refund form, or the order page with why it cannot be refunded. */
export function confirmRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    const viewer = await viewerOf(ctx, request);
    try {
      const preview = await previewOrderRefund(ctx, {
        organizationId: order.organizationId,
        orderId: order.id,
      });
      return sendPage(
        reply,
        200,
        renderRefundForm({ viewer, preview, values: EMPTY_FORM, errors: {}, problem: null }),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 404) throw error;
      return orderPage(ctx, request, reply, { status: error.status, problem: error.message });
    }
  };
}

/**
 * POST: step review shows what would go back (or the form again with what is wrong); step
 * confirm asks the refund and shows the order. Nothing is written before the confirmation.
 */
export function submitRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    const body = formOf(request.body);
    const { values, errors, asked } = readRefundForm(body, order.currency);
    const viewer = await viewerOf(ctx, request);
    const whole = { organizationId: order.organizationId, orderId: order.id };
    const formAgain = async (status: number, fieldErrors: FieldErrors, problem: string | null) => {
      const preview = await previewOrderRefund(ctx, whole);
      return sendPage(
        reply,
        status,
        renderRefundForm({ viewer, preview, values, errors: fieldErrors, problem }),
      );
    };
    try {
      if (Object.keys(errors).length > 0) return await formAgain(400, errors, null);
      const preview = await previewOrderRefund(ctx, { ...whole, ...asked });
      if (body.get('step') !== 'confirm') {
        return sendPage(reply, 200, renderRefundConfirmation({ viewer, preview, values }));
      }
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 404) throw error;
      if (error.code === 'refund_not_possible') return formAgain(422, {}, error.message);
      return orderPage(ctx, request, reply, { status: error.status, problem: error.message });
    }
    return askRefund(ctx, request, reply, order.id, (asker) =>
      refundOrder(ctx, { ...asker, orderId: order.id, ...asked, reason: values.reason }),
    );
  };
}

type Asker = Pick<RefundOrderOptions, 'organizationId' | 'actor' | 'ip'>;

/**
 * Asks a refund as the signed-in member, then shows the order; a refusal (refunded or being
 * refunded already) is the order page with its message and a 409.
 */
export async function askRefund(
  ctx: AppContext,
  request: Parameters<Handler>[0],
  reply: Parameters<Handler>[1],
  orderId: string,
  ask: (asker: Asker) => Promise<unknown>,
) {
  const { member, organizationId } = memberOf(request);
  try {
    await ask({ organizationId, actor: { memberId: member.id, label: member.email }, ip: request.ip });
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'conflict' || error.code === 'refund_not_possible')) {
      return orderPage(ctx, request, reply, { status: error.status, problem: error.message });
    }
    throw error;
  }
  return seeOther(reply, `/orders/${orderId}?refund=requested`);
}
