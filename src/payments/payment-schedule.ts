// When a payment attempt is asked about: the prompt window, the polling schedule and how long the
// job keeps asking.
import type { PaymentAttemptRow } from './payment-attempts.ts';

/** One job per attempt: submits if the prompt was never sent, then asks on the schedule. */
export const PAYMENT_JOB = 'payment.reconcile';

/** The approval window of a prompt on the phone (MTN: 5 minutes); Airtel is given the same. */
export const PROMPT_WINDOW_MS = 5 * 60_000;

/** How long after a prompt was sent the buyer may ask for it again (a prompt that never showed). */
export const RESEND_AFTER_MS = 30_000;

/** How long the job keeps asking the provider about an attempt, counted from its creation. */
export const RECONCILE_FOR_MS = 24 * 3600_000;

/**
 * Delay before the job's status query after `polls` earlier ones: 5, 10, 20 and 30 s after
 * submission, every 30 s through the prompt window, then growing (1, 2, 5, 10 and 30 minutes) and
 * hourly. The job stops RECONCILE_FOR_MS after the attempt began, not after a number of queries.
 */
export function nextPollDelayMs(polls: number): number {
  const early = [5_000, 5_000, 10_000, 10_000];
  if (polls < early.length) return early[polls]!;
  const windowPolls = Math.ceil((PROMPT_WINDOW_MS - 30_000) / 30_000);
  if (polls < early.length + windowPolls) return 30_000;
  const reconciling = [60_000, 120_000, 300_000, 600_000, 1_800_000];
  return reconciling[polls - early.length - windowPolls] ?? 3600_000;
}

export function reconcileEnd(attempt: PaymentAttemptRow, timeScale: number): number {
  return attempt.createdAt.getTime() + RECONCILE_FOR_MS * timeScale;
}

/**
 * When the job asks next: on the schedule, but no later than the end of the prompt window (where
 * the buyer-facing timeout is decided) and the end of reconciliation (the last question).
 */
export function nextQueryAt(attempt: PaymentAttemptRow, polls: number, now: Date, timeScale: number): Date {
  const times = [now.getTime() + nextPollDelayMs(polls) * timeScale, reconcileEnd(attempt, timeScale)];
  const windowEnd = attempt.promptExpiresAt.getTime();
  if (now.getTime() < windowEnd) times.push(windowEnd);
  return new Date(Math.min(...times));
}
