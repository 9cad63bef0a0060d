// What the check-in page keeps on the device (localStorage, per event): the roster as last read,
// the queue of check-ins and undos not yet sent, and the check-ins this device made that the
// server has not yet answered. A reload, online or not, starts from these.

import type { CheckInState, Roster, RosterRunner } from '../../src/checkin/roster-wire.ts';

export type { CheckInState, Roster };
export type Runner = RosterRunner;

export type QueueItem =
  | { kind: 'check_in'; id: string; registration_id: string; at: string }
  | { kind: 'undo'; id: string; at: string };

export interface Kept {
  roster: Roster | null;
  /** registration id -> its live check-in as this device knows it (server's, or its own unsent) */
  states: Record<string, CheckInState>;
  queue: QueueItem[];
  /** the server's time to poll changes from */
  since: string | null;
}

const keyOf = (eventId: string) => `check-in:${eventId}`;

export function load(eventId: string): Kept {
  try {
    const text = localStorage.getItem(keyOf(eventId));
    if (text) return JSON.parse(text) as Kept;
  } catch {
    // an unreadable copy is as good as none
  }
  return { roster: null, states: {}, queue: [], since: null };
}

export function save(eventId: string, kept: Kept): void {
  localStorage.setItem(keyOf(eventId), JSON.stringify(kept));
}

/** A UUID where the browser makes one (secure pages), else 128 random bits as hex. */
export function newClientId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
