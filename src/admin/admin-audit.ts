// The operator as the actor of the admin API's changes. The admin API, and the CLI that calls it,
// act as "operator" with the request's client IP; each action writes its entry in its transaction.
import type { FastifyRequest } from 'fastify';
import { OPERATOR_LABEL, type Actor } from '../audit/index.ts';

/** The operator as the actor of a request's change. */
export function operatorOf(request: FastifyRequest): Actor {
  return { memberId: null, label: OPERATOR_LABEL, ip: request.ip };
}
