// Background work of the commerce core, run by the shared job runner.
import type { JobHandler } from '../platform/index.ts';
import { HOLD_EXPIRY_JOB } from './write-orders.ts';
import { expireOrderHold } from './order-lifecycle.ts';

export const orderJobHandlers: Record<string, JobHandler> = {
  [HOLD_EXPIRY_JOB]: async ({ job, tx, now }) => {
    const result = await expireOrderHold(tx, String(job.payload.order_id), now);
    return result === 'done' ? undefined : result;
  },
};
