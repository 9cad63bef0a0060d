// What the Daraja client's calls share on the wire: names for logs, KES amounts in whole shillings,
// Daraja's error fields, and the answer of the calls whose outcome comes later to ResultURL (a
// reversal, a B2C payment): ConversationID and OriginatorConversationID, which that result names.
import { currencyExponent } from '../../../platform/index.ts';
import type { ProviderLog, Submission } from '../../provider-http.ts';

export const NAME = 'M-Pesa';
export const METHOD = 'mpesa';
/** KES minor units per shilling: Daraja takes whole shillings. */
export const CENTS = 10 ** currencyExponent('KES');
/** Remarks and Occasion of a reversal or a B2C payment: at most 100 characters. */
export const REMARKS_MAX = 100;
/** Daraja's ids are short tokens such as ws_CO_301120262045123456 or AG_20261130_0001. */
export const DARAJA_ID = /^[\w-]{1,64}$/;

export const isHttpUrl = (value: string) => /^https?:\/\/[^\s]+$/i.test(value);

/** Daraja's error or acknowledgement fields, short and log-safe. */
export function describeDaraja(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Record<string, unknown>;
  const parts = [b.errorCode, b.errorMessage, b.ResponseCode, b.ResponseDescription]
    .filter((part) => typeof part === 'string' && part !== '')
    .map((part) => String(part).slice(0, 120));
  return parts.length ? ` (${parts.join(': ')})` : '';
}

/** An amount Daraja can take: KES, whole shillings, at least one. */
export function amountProblem(amount: number, currency: string): string | null {
  if (currency !== 'KES') return `currency ${currency} is not supported by M-Pesa (KES only)`;
  if (!Number.isSafeInteger(amount) || amount % CENTS !== 0) return 'M-Pesa takes whole shillings only';
  if (amount < CENTS) return 'amount below the provider minimum';
  return null;
}

export type ConversationSubmitResult =
  /** taken: the outcome comes to ResultURL under these ids (parseReversalResult reads it) */
  | { kind: 'submitted'; conversationId: string; originatorConversationId: string }
  | { kind: 'rejected'; message: string; providerCode?: string }
  | { kind: 'unknown'; message: string };

/**
 * Daraja's answer to a reversal or a B2C payment (`action` names it in messages and logs). Taken
 * means ResponseCode 0 with both ids; taken without them is as good as a lost answer, since no
 * result could then be matched to it.
 */
export function readConversationAnswer(
  sent: Submission,
  about: { action: string; reference: string; log: ProviderLog },
): ConversationSubmitResult {
  if ('notSent' in sent) return { kind: 'rejected', message: sent.notSent };
  if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
  const { status, body } = sent.answer;
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const { ConversationID: conversation, OriginatorConversationID: originator, ResponseCode: code } = b;
  const taken = status === 200 && String(code) === '0';
  if (taken && typeof conversation === 'string' && DARAJA_ID.test(conversation)) {
    if (typeof originator === 'string' && DARAJA_ID.test(originator)) {
      return { kind: 'submitted', conversationId: conversation, originatorConversationId: originator };
    }
  }
  if (taken)
    return { kind: 'unknown', message: `${NAME} took the ${about.action} without its ConversationID` };
  const providerCode = typeof b.errorCode === 'string' ? b.errorCode : code !== undefined ? String(code) : '';
  about.log.warn(
    { provider: METHOD, reference: about.reference, status, code: providerCode.slice(0, 60) },
    `${about.action} refused`,
  );
  if (status >= 300 && status < 400) {
    return { kind: 'unknown', message: `${NAME} answered the ${about.action} with ${status}` };
  }
  return {
    kind: 'rejected',
    message: `${NAME} refused the ${about.action} (${status})${describeDaraja(body)}`,
    ...(providerCode ? { providerCode: providerCode.slice(0, 60) } : {}),
  };
}
