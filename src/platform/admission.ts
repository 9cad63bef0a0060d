// Admission for the routes that create (orders, checkout sessions): at most `limit` of
// their requests are worked on at once in this process; the rest wait their turn, in arrival
// order, before their bodies are even parsed. Under a burst (a flash sale) every request would
// otherwise advance one step at a time together, sharing the CPU and the database pool, and all
// of them would finish late; in turn, the first buyers are answered first and nobody waits longer.
// Only routes whose work is the database's belong here: one that waits on a payment provider
// would hold its place for as long as the provider takes.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface AdmissionGate {
  /** an onRequest hook: resolves when the request may go on; it leaves when its response closes */
  admit(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** requests being worked on, and waiting */
  readonly active: number;
  readonly waiting: number;
}

export function createAdmissionGate(limit: number): AdmissionGate {
  let active = 0;
  const queue: Array<() => void> = [];
  const leave = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  return {
    async admit(_request, reply) {
      if (active < limit) active++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      // 'close' comes once the response is written or the connection is gone, whichever is first
      reply.raw.once('close', leave);
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
