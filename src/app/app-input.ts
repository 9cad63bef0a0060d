// The organizer app's inputs, each read through a TypeBox schema by a small helper rather than a
// validator compiler, so that what does not fit is the page the app has always given: a path
// parameter that does not fit names nothing (the 404 page); a query value that does not fit is
// dropped and the page falls back to its default, unless the page says it is a 404; a form's
// fields are checked against the form's schema and each problem goes next to its field
// (form-body.ts). The limits are the admin API's own where the same thing is written.
import type { FastifyRequest } from 'fastify';
import { Type, type Static, type TObject } from 'typebox';
import { Value } from 'typebox/value';
import { PageError } from './app-access.ts';

/** An id we issued: its prefix, then base62 (docs/architecture.md#identifiers). */
export function IdParam(prefix: string) {
  return Type.String({ pattern: `^${prefix}_[A-Za-z0-9]{8,64}$` });
}

/** The path's parameters; any that does not fit its schema is the 404 page. */
export function paramsOf<S extends TObject>(request: FastifyRequest, schema: S): Static<S> {
  const params = request.params;
  if (!Value.Check(schema, params)) throw new PageError('not_found', 'path parameter');
  return params;
}

/**
 * The query's values for the schema's properties (all optional): each one that does not fit (a
 * repeated name, a wrong shape) is left out, so that the page uses its default; with `notFound`,
 * it is the 404 page instead.
 */
export function queryOf<S extends TObject>(
  request: FastifyRequest,
  schema: S,
  options: { notFound?: boolean } = {},
): Static<S> {
  const query: unknown = request.query;
  const kept: Record<string, unknown> = {};
  if (typeof query === 'object' && query !== null) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!Object.hasOwn(query, name)) continue;
      const value: unknown = Reflect.get(query, name);
      if (Value.Check(property, value)) kept[name] = value;
      else if (options.notFound) throw new PageError('not_found', `query ${name}`);
    }
  }
  if (Value.Check(schema, kept)) return kept;
  // Only a schema with a required property gets here: a page's query never has one.
  throw new PageError('not_found', 'query');
}

// ---------------------------------------------------------------------------------------------
// The schemas the app's routes share

export const OrderParams = Type.Object({ orderId: IdParam('ord') });
export const RunnerParams = Type.Object({ orderId: IdParam('ord'), registrationId: IdParam('reg') });
export const PaymentParams = Type.Object({ orderId: IdParam('ord'), paymentId: IdParam('pay') });
export const EventParams = Type.Object({ eventId: IdParam('evt') });
export const TicketTypeParams = Type.Object({ eventId: IdParam('evt'), ticketTypeId: IdParam('tt') });
export const ClientParams = Type.Object({ clientId: IdParam('cli') });
export const EndpointParams = Type.Object({ endpointId: IdParam('whe') });
export const DeliveryParams = Type.Object({ endpointId: IdParam('whe'), deliveryId: IdParam('whd') });
export const MemberParams = Type.Object({ memberId: IdParam('mem') });
export const InvitationParams = Type.Object({ invitationId: IdParam('inv') });
export const SessionParams = Type.Object({ sessionId: IdParam('ast') });
/** An invitation's or a reset's token: its shape is the page's own question (it explains). */
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 1000 }) });

/** `?done=`: which notice a page shows after a write (an unknown one shows none). */
export const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 100 })) });
