// Race-day check-in (docs/decisions/check-in-offline.md): GET /check-in lists the events to pick
// from; GET /check-in/:eventId is the page a volunteer's phone keeps (its script in web/checkin/,
// its worker /check-in/sw.js); the page reads the roster, polls changes, searches the server for
// phones and order codes, and sends its queue of check-ins and undos (POST .../sync, JSON, the
// CSRF token in a header). Every read finds the event within the member's organization.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { checkInChanges, loadRoster, readSync, searchRoster, syncCheckIns } from '../../checkin/index.ts';
import { listEventsOfOrganization } from '../../events/index.ts';
import { findRaceEvent, type RaceEvent } from '../../startlists/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { EventParams, paramsOf, queryOf } from '../app-input.ts';
import { CHECKIN_WORKER_JS, checkInAsset } from '../check-in-assets.ts';
import { actorOf, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  CHECK_IN_CONTENT_SECURITY_POLICY,
  renderCheckIn,
  renderCheckInEvents,
} from '../views/check-in-pages.ts';

async function raceOf(ctx: AppContext, request: FastifyRequest): Promise<RaceEvent> {
  const { eventId } = paramsOf(request, EventParams);
  const race = await findRaceEvent(ctx.database.db, memberOf(request).organizationId, eventId);
  if (!race) throw new PageError('not_found', 'event');
  return race;
}

/** How the page names the volunteer: their name, else their email's local part. */
function volunteerName(request: FastifyRequest): string {
  const { member } = memberOf(request);
  return (member.name.trim() || member.email.split('@')[0] || member.email).slice(0, 100);
}

export function showCheckInEvents(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const events = await listEventsOfOrganization(ctx.database.db, viewer.current.organizationId);
    const now = ctx.clock.now().getTime();
    // events still to come or run in the last two days, soonest first; cancelled ones are left out
    const current = events.filter(
      (e) => e.status !== 'cancelled' && e.endsAt.getTime() > now - 2 * 86_400_000,
    );
    return sendPage(reply, 200, renderCheckInEvents({ viewer, events: current }));
  };
}

export function showCheckIn(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const viewer = await viewerOf(ctx, request);
    reply.header('Content-Security-Policy', CHECK_IN_CONTENT_SECURITY_POLICY);
    return sendPage(
      reply,
      200,
      renderCheckIn({ viewer, event: race.event, volunteer: volunteerName(request) }),
    );
  };
}

export function getRoster(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    return reply.send(await loadRoster(ctx.database.db, race, ctx.clock.now()));
  };
}

const ChangesQuery = Type.Object({ since: Type.Optional(Type.String({ maxLength: 40 })) });

export function getChanges(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const now = ctx.clock.now();
    const since = new Date(queryOf(request, ChangesQuery).since ?? '');
    if (Number.isNaN(since.getTime())) {
      return reply
        .code(400)
        .send({ error: { code: 'invalid', message: 'since must be a time the server gave.' } });
    }
    const changes = await checkInChanges(ctx.database.db, race.event.id, since);
    return reply.send({ now: now.toISOString(), changes });
  };
}

const SearchQuery = Type.Object({ q: Type.Optional(Type.String({ maxLength: 100 })) });

/** The server's part of the search: phones (never on the device) and order codes, through the order search. */
export function searchRunners(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const q = queryOf(request, SearchQuery).q ?? '';
    return reply.send({ registration_ids: await searchRoster(ctx.database.db, race, q) });
  };
}

export function postSync(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const input = readSync(request.body);
    if (!input.ok) return reply.code(400).send({ error: { code: 'invalid', message: input.message } });
    const current = memberOf(request);
    const outcome = await syncCheckIns(ctx, {
      actor: actorOf(request),
      organizationId: current.organizationId,
      memberName: volunteerName(request),
      race,
      checkIns: input.checkIns,
      undos: input.undos,
    });
    if (!('done' in outcome)) throw new PageError('not_found', 'event');
    return reply.send({ now: ctx.clock.now().toISOString(), ...outcome.done });
  };
}

export function serveCheckInWorker(): Handler {
  return async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      // a worker's own fetches follow its script's policy: the app's default-src 'none' would refuse them
      .header('Content-Security-Policy', "default-src 'none'; connect-src 'self'")
      .send(CHECKIN_WORKER_JS);
}

const FileParams = Type.Object({ file: Type.String({ maxLength: 200 }) });

export function serveCheckInAsset(): Handler {
  return async (request, reply) =>
    checkInAsset(reply, paramsOf(request, FileParams).file, request.headers['accept-encoding']);
}
