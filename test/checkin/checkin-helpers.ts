// Shared by the check-in tests: an event with a T-shirt question and the emergency contact
// questions, its paid runners, and JSON calls of the check-in page's routes as its script makes them.
import assert from 'node:assert/strict';
import { withEmergencyContact } from '../../src/events/index.ts';
import { findRaceEvent, type RaceEvent } from '../../src/startlists/race-event.ts';
import { makeEvent, type Harness, type TestPartner } from '../helpers/harness.ts';
import { seedRunners, type RunnerInput } from '../startlists/seed-runners.ts';
import type { Agent, Reply } from '../app/app-helpers.ts';

export const SIZES = {
  key: 'tshirt',
  label: 'T-shirt size',
  type: 'select' as const,
  required: true,
  options: ['S', 'M', 'L'],
  help: '',
};
const text = (key: string, label: string) => ({
  key,
  label,
  type: 'text' as const,
  required: false,
  options: [],
  help: '',
});
/** the event's built-in emergency contact (events/emergency-contact.ts) */
export const EMERGENCY = withEmergencyContact([], true);

export async function makeRace(h: Harness, partner: TestPartner): Promise<RaceEvent> {
  const event = await makeEvent(h, partner, {
    additional_questions: [SIZES, ...EMERGENCY, text('club', 'Running club')],
  });
  return (await findRaceEvent(h.service.ctx.database.db, partner.organizationId, event.id))!;
}

/** Runners of the race's first ticket type; returns their registration ids. */
export async function addRunners(
  h: Harness,
  race: RaceEvent,
  runners: RunnerInput[],
  type = 0,
): Promise<string[]> {
  return seedRunners(h.service.ctx.database.db, race.event, race.ticketTypes[type]!, runners);
}

/** A JSON request of the check-in page's script: the session cookie and the CSRF header. */
export async function callJson(
  agent: Agent,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return agent.h.service.app.inject({
    method,
    url,
    remoteAddress: agent.ip,
    headers: {
      'user-agent': agent.userAgent,
      cookie: agent.cookieHeader(),
      ...(method === 'POST' && { 'content-type': 'application/json', 'x-csrf-token': agent.csrf ?? '' }),
      ...headers,
    },
    ...(body !== undefined && { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

export async function sync(agent: Agent, eventId: string, body: unknown) {
  const res = await callJson(agent, 'POST', `/check-in/${eventId}/sync`, body);
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  return jsonOf(res) as {
    check_ins: {
      id: string;
      registration_id: string;
      result: string;
      at?: string;
      by?: string;
      reason?: string;
      winner?: { at: string; by: string } | null;
    }[];
    undos: { id: string; result: string; reason?: string }[];
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const jsonOf = (res: Reply): any => JSON.parse(res.body);
