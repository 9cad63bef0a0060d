// The hooks that shed: each host's requests counted in hand from arrival to answer by the
// service's one overload monitor (overload.ts, the context's `overload`, which the service starts
// once its hosts are ready and stops when they have closed), and a new request over its limits
// answered 503 at once, before its body is read. Settings and why: docs/decisions/load-shedding.md.
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preValidationHookHandler } from 'fastify';
import { bodyArrived } from './client-errors.ts';
import type { Host } from './http.ts';
import type { InHand, OverloadMonitor } from './overload.ts';

/** Each shedding host's listener for its shed requests (metrics/request-metrics.ts counts them). */
const shedListeners = new WeakMap<Host, () => void>();

/** Calls `listener` for each request `app` sheds. */
export function onShed(app: Host, listener: () => void): void {
  shedListeners.set(app, listener);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the overload monitor's record of this request, once it is counted in hand */
    overload: InHand | null;
  }
}

/**
 * A public host: each new request is shed while a signal is over for it (except /healthz and /readyz,
 * which answer for the balancer). A request is counted in hand from when it has arrived, its body
 * all here, until its answer starts (an event stream counts only until it opens), and waits until
 * its handler starts: the wait for write admission (in the guard's hooks) is part of both. A slow
 * sender is not counted until its body is in: it costs no work, and a few hundred of them must not
 * make the instance refuse everyone.
 */
export function shedUnderOverload(app: Host, monitor: OverloadMonitor): void {
  if (!monitor.enabled) return;
  app.decorateRequest('overload', null);
  const begin = (request: FastifyRequest, reply: FastifyReply, route = routeOf(request)) => {
    const response = reply.raw;
    if (request.overload !== null || response.writableEnded || response.closed) return;
    const counted = monitor.begin(route);
    request.overload = counted;
    // A response may never be sent (a client gone while it waits for admission): its close ends it.
    response.once('close', () => monitor.end(counted));
  };
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.routeOptions.url;
    if (path === '/healthz' || path === '/readyz') return done();
    const route = routeOf(request);
    if (!monitor.accepts(route)) {
      shedListeners.get(app)?.();
      return done(monitor.error());
    }
    if (bodyArrived(request.raw)) begin(request, reply, route);
    done();
  });
  // A body sent with the headers is buffered by the parser only once this turn's hooks have run:
  // checked again a microtask later, before the route's own hooks (the guard waits for admission).
  const bodyWithHeaders: onRequestHookHandler = (request, reply, done) => {
    queueMicrotask(() => {
      if (bodyArrived(request.raw)) begin(request, reply);
      done();
    });
  };
  // A body that came later is counted once it is all here, again before the route's own hooks.
  const bodyIn: preValidationHookHandler = (request, reply, done) => {
    begin(request, reply);
    done();
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    route.onRequest = [bodyWithHeaders, ...hooks(route.onRequest)];
    route.preValidation = [bodyIn, ...hooks(route.preValidation)];
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.overload !== null) monitor.started(request.overload);
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.overload !== null) monitor.end(request.overload);
    done(null, payload);
  });
}

/** The route a request waits with: its method and pattern (bounded, whatever paths clients send). */
function routeOf(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? 'unmatched'}`;
}

function hooks<T>(own: T | T[] | undefined): T[] {
  return own === undefined ? [] : Array.isArray(own) ? own : [own];
}
