// The parts of GET /v1/openapi.json that no route schema yields: the `webhooks` section (the signed
// POST a partner's receiver gets, src/webhooks/README.md) and an example per error status.
import type { OpenAPIV3_2 } from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';
import { OrderOut } from './orders/index.ts';
import type { ErrorCode, FieldError } from './platform/index.ts';
import { TEST_EVENT_TYPE, USER_AGENT } from './webhooks/index.ts';

/** The body every webhook carries: {type, timestamp, data}, nothing else. */
function WebhookBody(type: string, happened: string, data: TSchema) {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({
        format: 'date-time',
        description: `${happened}, ISO 8601 UTC`,
        examples: ['2026-11-20T09:14:03.512Z'],
      }),
      data,
    },
    { additionalProperties: false },
  );
}

/** data of order.paid: the Order exactly as GET /v1/orders/{orderId} returns it. */
const OrderPaidWebhookBody = WebhookBody('order.paid', 'When the order was paid', OrderOut);
/** The refund an order.refunded event carries (docs/partners/webhooks.md, "What your endpoint receives"). */
const OrderRefundOut = Type.Object(
  {
    id: Type.String({ description: 'The refund (rfd_...), as POST /v1/orders/{id}/refunds answered it' }),
    amount_minor: Type.Integer({
      description:
        "What this refund returned to the buyer, minor units: all that was left, some runners' places, or an amount",
    }),
    currency: Type.String({ examples: ['UGX'] }),
    method: Type.String({
      description: 'momo, airtel, mpesa or card: the method that took the payment and returned it',
    }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why, as it was asked; null if none' }),
    registration_ids: Type.Array(Type.String(), {
      description:
        'The runners whose places this refund returned (their registrations are cancelled); [] for an amount alone',
    }),
    refunded_at: Type.String({ format: 'date-time', description: 'When the provider confirmed the refund' }),
    provider_reference: Type.Union([Type.String(), Type.Null()], {
      description:
        "The network's id of the refund (MTN financialTransactionId, Airtel airtel_money_id), or null",
    }),
  },
  { additionalProperties: false },
);
/** data of order.refunded: the Order (status refunded, or paid with its refunded_total) with the refund. */
const OrderRefundedWebhookBody = WebhookBody(
  'order.refunded',
  'When the refund was confirmed',
  Type.Object({ ...OrderOut.properties, refund: OrderRefundOut }),
);
const TestWebhookBody = WebhookBody(
  TEST_EVENT_TYPE,
  'When the test was asked for',
  Type.Object({ endpoint_id: Type.String(), message: Type.String() }, { additionalProperties: false }),
);

const ORDER_EXAMPLE: OrderOut = {
  id: 'ord_7hYt2LmQ9xWc4RbN1sKp3VzA',
  order_code: 'K7M2Q9XP',
  event_id: 'evt_3kTzQ8bN1cV7xY2wR5mP0aLd',
  status: 'paid',
  currency: 'UGX',
  subtotal: 50000,
  discount_total: 0,
  donation_total: 0,
  laces_fee: 2500,
  total: 52500,
  payment_method: 'momo',
  refunded_total: 0,
  failure_kind: null,
  ticket_count: 1,
  buyer: { name: 'Ann Namusoke', email: 'ann@example.org', phone: '256772123456' },
  attribution: {
    channel: 'partner_api',
    api_client_id: 'cli_Zq8mW2kT5yR1nB7xL4vP0sHc',
    checkout_session_id: 'cs_4fQm2ZLx9TbK1wPq7sVd3nHa',
    partner_reference: 'cart-1042',
  },
  hold_expires_at: null,
  created_at: '2026-11-20T09:14:03.512Z',
  registrations: [
    {
      id: 'reg_9Lk2Wq7XbN4tZr1Ym8Pc3Vs6',
      ticket_type_id: 'tt_5Gh8Qw2Zr7Lm1Xc4Vb9Nk3Tp',
      distance_km: 21.1,
      ticket_label: 'Half marathon',
      participant_name: 'Ann Namusoke',
      status: 'confirmed',
    },
  ],
};

const HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'msg_...: the id of the event, the same on every attempt and replay of it. Deduplicate on it.',
    schema: { type: 'string' },
    example: 'msg_2ZxKq9Lm4TbW7yN1cR5vP8dH',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt. Reject values more than 5 minutes from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795166044',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body" keyed with the base64 text after whsec_ in the secret>. Two space-separated signatures for 24 hours after a secret rotation, one per secret: accept the request when any one matches. Verify against the raw body bytes.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
  {
    name: 'user-agent',
    in: 'header',
    required: true,
    schema: { type: 'string', const: USER_AGENT },
    example: USER_AGENT,
  },
];

const RESPONSES = {
  '2XX': {
    description:
      'Received. Answer within 15 seconds and do the work afterwards; once an endpoint answers 2xx, this event is not sent to it again.',
  },
  default: {
    description:
      'Any other answer, a redirect (not followed) or no answer in 15 seconds is a failure: the event is sent again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (ten attempts), or later when a Retry-After header asks. 410 Gone disables the endpoint at once.',
  },
};

function webhook(summary: string, description: string, body: TSchema, example: object) {
  return {
    post: {
      tags: ['Webhooks'],
      summary,
      description,
      parameters: HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: body, example } } },
      responses: RESPONSES,
    },
  };
}

/** The OpenAPI 3.1 `webhooks` section, as plain JSON (no TypeBox symbols). */
export function webhooksSection(): Record<string, OpenAPIV3_2.PathItemObject> {
  const at = '2026-11-20T09:14:03.512Z';
  return JSON.parse(
    JSON.stringify({
      'order.paid': webhook(
        'An order was paid',
        'Sent to each enabled endpoint subscribed to order.paid when an order becomes paid (at once for a free order). data is the Order as GET /v1/orders/{orderId} returned it at that moment. Delivery is at least once and in no particular order: deduplicate on webhook-id, and read the order when its current state matters.',
        OrderPaidWebhookBody,
        { type: 'order.paid', timestamp: at, data: ORDER_EXAMPLE },
      ),
      'order.refunded': webhook(
        'An order was refunded',
        "Sent to each enabled endpoint subscribed to order.refunded each time a refund of a paid order succeeded through the mobile-money network: in full, some runners' places, or an amount. data is the Order, with status refunded once refunded_total reaches total (every registration cancelled, its tickets released) and paid before that (the registrations in refund.registration_ids cancelled), and the refund object of this refund. Signed, retried and delivered at least once like order.paid: deduplicate on webhook-id.",
        OrderRefundedWebhookBody,
        {
          type: 'order.refunded',
          timestamp: at,
          data: {
            ...ORDER_EXAMPLE,
            status: 'refunded',
            registrations: ORDER_EXAMPLE.registrations.map((r) => ({ ...r, status: 'cancelled' })),
            refunded_total: 52500,
            refund: {
              id: 'rfd_2bQm7xK9cT4nV8rW1sLp0aZe',
              amount_minor: 52500,
              currency: 'UGX',
              method: 'momo',
              reason: 'The runner is injured',
              registration_ids: ORDER_EXAMPLE.registrations.map((r) => r.id),
              refunded_at: '2026-11-21T10:02:44.120Z',
              provider_reference: '6502281937',
            },
          },
        },
      ),
      [TEST_EVENT_TYPE]: webhook(
        'A test event',
        'Sent on request (POST /v1/webhook-endpoints/{endpointId}/test) to that one endpoint, whatever events it subscribes to; signed, retried and logged like any other event.',
        TestWebhookBody,
        {
          type: TEST_EVENT_TYPE,
          timestamp: at,
          data: {
            endpoint_id: 'whe_8Rt2Yq5Lm1Xw7Kb4Nc9Vz3Pd',
            message: 'A test event sent on request. Verify its signature and answer with a 2xx status.',
          },
        },
      ),
    }),
  ) as Record<string, OpenAPIV3_2.PathItemObject>;
}

interface ErrorExample {
  /** the response's description, for every route */
  description: string;
  error_code: ErrorCode;
  message: string;
  errors?: FieldError[];
}

/** A usual error body for each status the routes document, for the example of each error response. */
const ERROR_EXAMPLES: Record<string, ErrorExample> = {
  400: {
    description: 'The request is not valid; errors names the fields',
    error_code: 'validation_failed',
    message: 'buyer.email: must be an e-mail address',
    errors: [{ field: 'buyer.email', message: 'must be an e-mail address' }],
  },
  401: {
    description: 'No valid credential',
    error_code: 'invalid_token',
    message: 'Authentication required: send a bearer access token.',
  },
  403: {
    description: 'The credential may not do this',
    error_code: 'insufficient_scope',
    message: 'This credential lacks the scope orders:read.',
  },
  404: { description: 'Not found', error_code: 'not_found', message: 'No such resource.' },
  409: {
    description: 'The current state does not allow it',
    error_code: 'conflict',
    message: 'This webhook endpoint is disabled; enable it first.',
  },
  422: {
    description: 'Well formed, but refused',
    error_code: 'idempotency_key_reused',
    message:
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
  },
  429: {
    description: 'Too many requests: retry after the time in Retry-After',
    error_code: 'rate_limited',
    message: 'Too many requests; retry after the time in Retry-After.',
  },
};

interface MediaType {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: unknown;
}
interface Response {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Document {
  paths?: Record<string, Record<string, { responses?: Record<string, Response> }>>;
}

/**
 * Gives each error response that points at the shared Error body a description and an example with
 * its own status as code. A route schema cannot: the generator drops everything beside a $ref, and the Error
 * component's own example (a 404) would otherwise be shown under every error status.
 */
export function addErrorExamples(document: object): void {
  for (const item of Object.values((document as Document).paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        const example = ERROR_EXAMPLES[status];
        if (!media || !example || media.schema?.$ref !== '#/components/schemas/Error') continue;
        if (response.description === 'Default Response') response.description = example.description;
        if (media.example !== undefined || media.examples !== undefined) continue;
        media.example = {
          code: Number(status),
          message: example.message,
          error_code: example.error_code,
          request_id: 'req_8dJ2kq0x1F3n9bTz7Qe4LmVw',
          ...(example.errors && { errors: example.errors }),
        };
      }
    }
  }
}
