// A real overload, for the tests of what a buyer sees when the service sheds: a transaction locks
// the checkout sessions table (on PGlite it holds the one connection), HELD page requests pile up
// in hand behind it, and with OVERLOAD_MAX_QUEUED = HELD every new request on the API and checkout
// hosts is answered 503 until the lock is released. The shedding itself is the service's own.
import { sql } from 'drizzle-orm';
import type { Harness } from './harness.ts';
import { waitFor } from './wait.ts';

/**
 * Requests held in hand: twice what Chromium sends to one host at once (6 connections), so that a
 * page's own loads, slowed by a busy machine, are never shed once the lock is gone.
 */
export const HELD = 12;

/** The settings a service needs for shedRequests (the browser's many page loads are not limited). */
export const SHEDDING_SETTINGS = {
  OVERLOAD_MAX_QUEUED: String(HELD),
  OVERLOAD_RETRY_AFTER_SECONDS: '1',
  RATE_LIMIT_SITE_RATE: '1000',
  RATE_LIMIT_SITE_BURST: '1000',
};

export interface Shedding {
  /** Releases the lock, lets the held requests finish and waits until the checkout answers again. */
  release(): Promise<void>;
}

/** Starts shedding on the service listening at `site` (its SITE origin); see the file's comment. */
export async function shedRequests(h: Harness, site: string): Promise<Shedding> {
  const database = h.service.ctx.database;
  let unlock!: () => void;
  const unlocked = new Promise<void>((resolve) => (unlock = resolve));
  let locked!: () => void;
  const lockHeld = new Promise<void>((resolve) => (locked = resolve));
  const holding = database.transaction(async (tx) => {
    await database.rows(sql`LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE`, tx);
    locked();
    await unlocked;
  });
  await lockHeld;
  // Held until the lock goes: HELD of them, and more while the checkout does not shed yet (a
  // request of the page's own may have been in hand, so that some of the first were shed).
  const settled: (number | string)[] = [];
  const held: Promise<unknown>[] = [];
  const hold = () =>
    held.push(
      fetch(`${site}/checkout/cs_held${String(held.length).padStart(2, '0')}aaaaaaaaaaaaaaa`).then(
        async (response) => settled.push((await response.arrayBuffer(), response.status)),
        (error: unknown) => settled.push(String(error)),
      ),
    );
  for (let i = 0; i < HELD; i++) hold();
  // An asset needs no database: 404 while the checkout takes requests, 503 once it sheds.
  const probe = async () => (await fetch(`${site}/assets/probe.css`)).status;
  // Shedding for good only once held requests alone fill the queue: a page's own request in hand
  // when the probe is shed would leave a free place behind it, taken by the test's next request,
  // which would then wait on the lock. Looked at twice, a moment apart, as a late request lands.
  const heldInHand = () => held.length - settled.length;
  const shedsForGood = async () => {
    for (let look = 0; look < 2; look++) {
      if (look > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      if ((await probe()) !== 503 || heldInHand() < HELD) return false;
    }
    return true;
  };
  try {
    await waitFor('the checkout to shed', async () => {
      if (await shedsForGood()) return true;
      if (held.length < HELD * 4 && heldInHand() < HELD) hold();
      return false;
    });
  } catch (error) {
    unlock();
    await holding;
    throw new Error(`${(error as Error).message}; held requests answered meanwhile: ${settled.join(', ')}`, {
      cause: error,
    });
  }
  return {
    async release() {
      unlock();
      await holding;
      await Promise.all(held);
      await waitFor('the checkout to answer again', async () => (await probe()) === 404);
    },
  };
}
