// What a failed or unstarted payment means to the buyer, in the request's language: the failure
// kinds' words (a card's in card words: card-wait.ts) and the errors that stopped a start.
import { msg } from '../messages/current.ts';
import { cardOutcome } from './card-wait.ts';

interface Outcome {
  title: string;
  text: string;
  retry: boolean;
}

type OutcomeKind = keyof ReturnType<typeof msg>['status']['outcomes'];

/** Whether paying again can help, per failure_kind; the words are the catalog's (status.outcomes). */
const RETRY: Record<OutcomeKind, boolean> = {
  payment_declined: true,
  payment_timeout: true,
  insufficient_funds: true,
  invalid_phone_number: true,
  provider_error: true,
  hold_expired: false,
};

/**
 * What a failure_kind means to the buyer, in the request's language (a card's in card words), and
 * whether to offer a retry.
 */
export function outcomeOf(kind: string, card = false): Outcome | null {
  if (!Object.hasOwn(RETRY, kind)) return null;
  const words = (card && cardOutcome(kind)) || msg().status.outcomes[kind as OutcomeKind];
  return { ...words, retry: RETRY[kind as OutcomeKind] };
}

export function startErrorText(code: string | undefined): string | null {
  if (!code) return null;
  const texts = msg().status.startErrors;
  return Object.hasOwn(texts, code) ? texts[code as keyof typeof texts] : texts.internal_error;
}
