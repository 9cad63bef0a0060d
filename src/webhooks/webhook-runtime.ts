// What the webhooks module needs beyond the shared context, per service, the context's `webhooks`:
// the DNS resolver (tests give a stub at start, so no test ever asks real DNS) and the URL policy
// and timings derived from configuration. Built at start by the composition root (service.ts).
import type { Config } from '../config.ts';
import type { UrlPolicy } from './address-policy.ts';
import { systemResolver, type Resolver } from './send-webhook.ts';

declare module '../context.ts' {
  interface AppContext {
    readonly webhooks: WebhookRuntime;
  }
}

export interface WebhookRuntime {
  resolve: Resolver;
  policy: UrlPolicy;
  timeoutMs: number;
  timeScale: number;
}

/** The runtime of a service on `config`; `resolve` replaces the system's DNS (tests). */
export function createWebhookRuntime(config: Config, resolve: Resolver = systemResolver): WebhookRuntime {
  const { webhooks, env } = config;
  return {
    resolve,
    policy: { production: env === 'production', allowPrivate: webhooks.allowPrivateUrls },
    timeoutMs: webhooks.timeoutMs,
    timeScale: webhooks.timeScale,
  };
}
