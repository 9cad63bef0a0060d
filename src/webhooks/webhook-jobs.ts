// Job kinds of earlier releases, kept as no-ops for rolling updates: a process of the earlier
// release may still enqueue them, and a job nobody handles would never leave the table. The
// sender (webhook-sender.ts) is a queue of the job runner of its own.
import type { JobHandlerEntry } from '../platform/index.ts';

/** The dispatcher was a recurring job; the sender takes new events itself now. */
const RETIRED_DISPATCH_JOB = 'webhook.dispatch';

/** Each delivery was sent by a job; the sender reads the deliveries themselves now. */
const RETIRED_DELIVER_JOB = 'webhook.deliver';

export const webhookJobHandlers: Record<string, JobHandlerEntry> = {
  [RETIRED_DISPATCH_JOB]: async () => {},
  [RETIRED_DELIVER_JOB]: async () => {},
};
