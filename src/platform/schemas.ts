// Shared wire schemas: the envelopes, timestamps, and the error body, for validation and OpenAPI.
import { Type, type Static, type TSchema } from 'typebox';

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds',
  examples: ['2026-12-06T05:00:00.000Z'],
});

/** A success body; `code` is the HTTP status the route answers with, shown as its example. */
export function Envelope<T extends TSchema>(data: T, message: string, code = 200) {
  return Type.Object(
    {
      code: Type.Integer({ description: 'HTTP status', examples: [code] }),
      message: Type.String({ examples: [message] }),
      data,
    },
    { description: message },
  );
}

export const ErrorOut = Type.Object(
  {
    code: Type.Integer({ description: 'HTTP status' }),
    message: Type.String(),
    error_code: Type.String({ description: 'Stable machine-readable code' }),
    request_id: Type.String({ description: 'Quote this to support' }),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  {
    $id: 'Error',
    examples: [
      {
        code: 404,
        message: 'No such event.',
        error_code: 'not_found',
        request_id: 'req_8dJ2kq0x1F3n9bTz7Qe4LmVw',
      },
    ],
  },
);
export type ErrorOut = Static<typeof ErrorOut>;

/** Error responses of a route, for the OpenAPI document. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));
}
