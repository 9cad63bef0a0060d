// An endpoint's delivery log: each delivery with its event type, status and every attempt (time,
// HTTP status or error, latency, the start of the response), a Retry button for writers, and the
// notice saying what the receiver answered to a send made from the page.
import { html, type Html } from '../../platform/index.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../webhooks/index.ts';
import { formatTime } from './fields.ts';
import { csrfInput } from './layout.ts';

export interface DeliveryLog {
  entries: { delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }[];
  /** the cursor of the next (older) page, or null on the last one */
  nextCursor: string | null;
  /** this is not the newest page */
  older: boolean;
}

/** A delivery just sent from the page and its last attempt (null when no attempt was made). */
export interface SentResult {
  delivery: WebhookDeliveryRow;
  attempt: WebhookAttemptRow | null;
}

const EXCERPT_SHOWN = 300;

/** Attempts come seconds apart: their times are shown to the second. */

export function answered2xx(attempt: WebhookAttemptRow | null): boolean {
  return attempt?.status != null && attempt.status >= 200 && attempt.status < 300;
}

/** "HTTP 204 in 12 ms" or "no answer (connection refused) after 3 ms". */
export function attemptSummary(attempt: WebhookAttemptRow): string {
  if (attempt.status != null) return `HTTP ${attempt.status} in ${attempt.latencyMs} ms`;
  return `no answer (${attempt.error ?? 'unknown error'}) after ${attempt.latencyMs} ms`;
}

/** The notice after a send: good when the receiver answered 2xx. */
export function sentNotice(sent: SentResult): Html {
  const { delivery, attempt } = sent;
  if (!attempt) {
    return html`<p class="notice" role="status">
      The ${delivery.eventType} event is queued and will be sent within a few seconds.
    </p>`;
  }
  if (answered2xx(attempt)) {
    return html`<p class="notice good" role="status">
      The ${delivery.eventType} event was delivered: the receiver answered ${attemptSummary(attempt)}.
    </p>`;
  }
  return html`<p class="notice bad" role="status">
    The ${delivery.eventType} event was not delivered: the receiver gave ${attemptSummary(attempt)}, not a 2xx
    status. ${delivery.status === 'pending' ? 'It will be tried again on the retry schedule.' : ''}
  </p>`;
}

function attemptItem(attempt: WebhookAttemptRow): Html {
  const ok = answered2xx(attempt);
  return html`<li>
    <span>${formatTime(attempt.attemptedAt, { seconds: true })}</span>
    <strong class="${ok ? 'ok' : 'fail'}"
      >${attempt.status != null ? `HTTP ${attempt.status}` : (attempt.error ?? 'no answer')}</strong
    >
    <span>${attempt.latencyMs} ms</span>
    ${
      attempt.responseExcerpt
        ? html`<pre class="excerpt">${attempt.responseExcerpt.slice(0, EXCERPT_SHOWN)}</pre>`
        : ''
    }
  </li>`;
}

function deliveryItem(
  endpoint: WebhookEndpointRow,
  entry: DeliveryLog['entries'][number],
  retry: { csrf: string } | null,
): Html {
  const { delivery, attempts } = entry;
  return html`<li class="delivery panel" id="delivery-${delivery.id}">
    <h3 id="delivery-${delivery.id}-title">
      <code>${delivery.eventType}</code>
      <span class="status ${delivery.status}">${delivery.status}</span>
    </h3>
    <p class="muted">
      Created ${formatTime(delivery.createdAt)} · webhook-id <code>${delivery.eventId}</code>
      ${delivery.status === 'pending' && delivery.nextAttemptAt ? html` · next attempt ${formatTime(delivery.nextAttemptAt)}` : ''}
    </p>
    ${
      attempts.length === 0
        ? html`<p>No attempt yet.</p>`
        : html`<ol class="attempts" aria-label="Attempts of this delivery">
            ${attempts.map(attemptItem)}
          </ol>`
    }
    ${
      retry
        ? html`<form
            method="post"
            action="/developers/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry"
            class="inline"
          >
            ${csrfInput(retry.csrf)}
            <button type="submit" aria-describedby="delivery-${delivery.id}-title">Retry</button>
          </form>`
        : ''
    }
  </li>`;
}

export function deliveryLog(
  endpoint: WebhookEndpointRow,
  log: DeliveryLog,
  retry: { csrf: string } | null,
): Html {
  const base = `/developers/webhooks/${endpoint.id}`;
  const paging =
    log.older || log.nextCursor
      ? html`<nav aria-label="Delivery log pages" class="actions">
          ${log.older ? html`<a href="${base}#log">Newest deliveries</a>` : ''}
          ${log.nextCursor ? html`<a href="${base}?cursor=${encodeURIComponent(log.nextCursor)}#log">Older deliveries</a>` : ''}
        </nav>`
      : html``;
  return html`<h2 id="log">Delivery log</h2>
    <p class="muted">Newest first. Each delivery keeps its webhook-id on every attempt and retry.</p>
    ${
      log.entries.length === 0
        ? html`<p>${log.older ? 'No older deliveries.' : 'Nothing was sent to this endpoint yet.'}</p>`
        : html`<ol class="deliveries">
            ${log.entries.map((entry) => deliveryItem(endpoint, entry, retry))}
          </ol>`
    }
    ${paging}`;
}
