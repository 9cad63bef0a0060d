// Admission for the routes that create (orders, checkout sessions): at most `limit` of
// their requests are worked on at once in this process; the rest wait their turn, in arrival
// order, before their work starts. Under a burst (a flash sale) every request would otherwise
// advance one step at a time together, sharing the CPU and the database pool, and all of them
// would finish late; in turn, the first buyers are answered first and nobody waits longer.
// No place is held while a body arrives (a few dozen slow senders would stop every sale): the
// guard asks for one on arrival only when the body came with the headers, and otherwise once the
// body is all here; the request's database reads wait for its place.
// Only routes whose work is the database's belong here: one that waits on a payment provider
// would hold its place for as long as the provider takes.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface AdmissionGate {
  /**
   * Called by the guard once the body is in: resolves when the request may go on; it leaves when
   * its response closes. A request whose client goes away while it waits is dropped (hijacked, its
   * handler never runs), so a buyer who left before their turn gets nothing created and takes no
   * place.
   */
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
  /** resolves true when admitted (the place handed over by `leave`), false when the client left */
  const wait = (response: FastifyReply['raw']) =>
    new Promise<boolean>((resolve) => {
      const enter = () => {
        response.off('close', gone);
        resolve(true);
      };
      const gone = () => {
        const at = queue.indexOf(enter);
        if (at !== -1) queue.splice(at, 1);
        resolve(false);
      };
      queue.push(enter);
      response.once('close', gone);
    });
  return {
    async admit(_request, reply) {
      const response = reply.raw;
      if (active < limit) active++;
      else if (!(await wait(response))) {
        reply.hijack();
        return;
      }
      // 'close' comes once the response is written or the connection is gone, whichever is first;
      // a listener added after it would never run and the place would be lost for good.
      if (response.closed) {
        leave();
        reply.hijack();
        return;
      }
      response.once('close', leave);
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
