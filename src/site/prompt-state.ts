// What the request being answered did on the buyer's phone, for the page a failure answers it with
// (views/unavailable-page.ts): a 503 before startPayment was reached sent nothing; one after it
// returned follows a prompt recorded (the job sends it even if this process stops); one from inside
// it cannot tell whether its transaction committed, so it says so.
import type { FastifyRequest } from 'fastify';
import { databaseUnavailable } from '../platform/index.ts';

export type PromptState = 'none' | 'sent' | 'unknown';

const states = new WeakMap<FastifyRequest, PromptState>();

export function promptStateOf(request: FastifyRequest): PromptState {
  return states.get(request) ?? 'none';
}

/**
 * Runs `start` (a startPayment call) on behalf of `request`, recording how far it got. A failure
 * other than the database being out of reach rolled its transaction back: nothing was recorded.
 */
export async function startPromptFor<T>(request: FastifyRequest, start: () => Promise<T>): Promise<T> {
  states.set(request, 'unknown');
  try {
    const result = await start();
    states.set(request, 'sent');
    return result;
  } catch (error) {
    if (!databaseUnavailable(error)) states.set(request, 'none');
    throw error;
  }
}
