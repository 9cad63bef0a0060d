// Response headers of every checkout page: a Content-Security-Policy that allows only our own
// script and styles, pins who may frame the page (the session's embed origin, else nobody) and
// where forms may lead (ourselves and the session's return URLs), plus no-store, no referrer,
// nosniff. The pages never set cookies.
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

export interface FramePolicy {
  /** the embedded session's origin; null = the page may not be framed; '*' = any page may */
  embedOrigin: string | null;
  /** origins a form post may be redirected to (the session's on_success_url / on_cancel_url) */
  formTargets: string[];
}

export const NO_FRAMING: FramePolicy = { embedOrigin: null, formTargets: [] };

/**
 * The 503 page's: it cannot read the session (the database is out of reach, or the request was
 * shed), and it must show inside the modal of whichever partner opened it. It offers nothing a
 * framing page could not send itself (routes/unavailable-reply.ts).
 */
export const ANY_FRAMER: FramePolicy = { embedOrigin: '*', formTargets: [] };

function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

export function framePolicyFor(session: {
  uiMode: string;
  embedOrigin: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
}): FramePolicy {
  const embedOrigin = session.uiMode === 'embedded' ? originOf(session.embedOrigin) : null;
  const formTargets = [originOf(session.successUrl), originOf(session.cancelUrl)].filter(
    (o): o is string => o !== null,
  );
  return { embedOrigin, formTargets: [...new Set(formTargets)] };
}

/**
 * Inline elements a page may run, by their exact text (the 503 page's: views/unavailable-page.ts),
 * and whether it may start a service worker of ours (the ticket page's: ticket-worker.ts).
 */
export interface InlineParts {
  scripts?: string[];
  styles?: string[];
  worker?: boolean;
}

/** The CSP source that allows an inline element with exactly this text. */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export function contentSecurityPolicy(policy: FramePolicy, inline: InlineParts = {}): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...(inline.scripts ?? []).map(hashSource)].join(' '),
    ["style-src 'self'", ...(inline.styles ?? []).map(hashSource)].join(' '),
    "img-src 'self' https: data:",
    "connect-src 'self'",
    "font-src 'self'",
    ...(inline.worker ? ["worker-src 'self'"] : []),
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${["'self'", ...policy.formTargets].join(' ')}`,
    `frame-ancestors ${policy.embedOrigin ?? "'none'"}`,
  ].join('; ');
}

/** Headers for an HTML page (or the status JSON) of the checkout. */
export function setPageHeaders(reply: FastifyReply, policy: FramePolicy, inline?: InlineParts): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy(policy, inline));
  if (policy.embedOrigin === null) reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
}
