// The request duration histogram: one observe per answer, in a callback onResponse hook (no
// promise: it runs on every request). The route label is the route's pattern, never the URL, so
// the series stay bounded whatever paths clients send.
import type { AppContext } from '../context.ts';
import { onShed, type Host, type HostName } from '../platform/index.ts';

/**
 * Times every answer of the host, and counts the requests it sheds, when the service has metrics
 * (METRICS_PORT).
 */
export function observeRequests(app: Host, host: HostName, ctx: AppContext): void {
  const metrics = ctx.metrics;
  if (!metrics) return;
  const histogram = metrics.httpRequests;
  // The organizer app is never shed; the others' series exist from the start, so rate() sees the first.
  if (host !== 'app') {
    const shed = metrics.requestsShed.labels({ host });
    shed.inc(0);
    onShed(app, () => shed.inc());
  }
  app.addHook('onResponse', (request, reply, done) => {
    histogram.observe(
      {
        host,
        route: request.routeOptions.url ?? 'unmatched',
        method: request.method,
        status: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
