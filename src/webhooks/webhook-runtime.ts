// What the webhooks module needs beyond the shared context, per service: the DNS resolver (tests
// swap in a stub, so no test ever asks real DNS) and the URL policy derived from configuration.
import type { AppContext } from '../context.ts';
import type { UrlPolicy } from './address-policy.ts';
import { systemResolver, type Resolver } from './send-webhook.ts';

export interface WebhookRuntime {
  resolve: Resolver;
  policy: UrlPolicy;
  timeoutMs: number;
  timeScale: number;
}

const overrides = new WeakMap<AppContext, Partial<Pick<WebhookRuntime, 'resolve'>>>();

/** Replaces the resolver of one service (tests). */
export function setWebhookResolver(ctx: AppContext, resolve: Resolver): void {
  overrides.set(ctx, { ...overrides.get(ctx), resolve });
}

export function webhookRuntime(ctx: AppContext): WebhookRuntime {
  const { webhooks, env } = ctx.config;
  return {
    resolve: overrides.get(ctx)?.resolve ?? systemResolver,
    policy: { production: env === 'production', allowPrivate: webhooks.allowPrivateUrls },
    timeoutMs: webhooks.timeoutMs,
    timeScale: webhooks.timeScale,
  };
}
