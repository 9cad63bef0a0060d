// The order a partner or the hosted checkout submits: the wire schema of POST /v1/orders and the
// input type createOrder takes, derived from it.
import { Type, type Static } from 'typebox';

export const OrderIn = Type.Object(
  {
    event_id: Type.String({ maxLength: 200 }),
    items: Type.Array(
      Type.Object(
        {
          ticket_type_id: Type.String({ maxLength: 200 }),
          participant_name: Type.String({ maxLength: 200 }),
          answers: Type.Optional(Type.Record(Type.String(), Type.String())),
          date_of_birth: Type.Optional(
            Type.String({ description: 'YYYY-MM-DD; required when the ticket type has a minimum age' }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    buyer: Type.Object(
      {
        name: Type.String({ maxLength: 200 }),
        email: Type.String({ maxLength: 254 }),
        phone: Type.String({ maxLength: 32 }),
      },
      { additionalProperties: false },
    ),
    waiver_accepted: Type.Optional(Type.Boolean()),
    donation_minor: Type.Optional(Type.Integer()),
    client_reference_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type OrderItemInput = Static<typeof OrderIn>['items'][number];

export type CreateOrderInput = Static<typeof OrderIn> & {
  /** the key of the method whose fee applies; the service's default method when not chosen yet */
  payment_method?: string;
};
