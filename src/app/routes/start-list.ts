// Start lists: GET /events/:eventId/start-list (every member reads it, a page of runners at a
// time), POST .../bib-ranges and POST .../bibs/assign (owners and admins), the CSV download and the
// pickup list to print (roles that may export: both hold every runner at once; the CSV is audited).
// Every read finds the event within the member's organization; each write is a start list action
// (startlists/actions/), which takes the event's bib lock and commits with its audit entry.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listEventsOfOrganization } from '../../events/index.ts';
import {
  answerTotals,
  assignBibs,
  bibProgress,
  csvFileName,
  decodeStartListCursor,
  encodeStartListCursor,
  findRaceEvent,
  listBibRanges,
  readStartList,
  saveBibRanges,
  startListCsv,
  walkStartList,
  walkTicketTypeByName,
  type RaceEvent,
  type StartListRow,
} from '../../startlists/index.ts';
import { can } from '../../members/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, readField, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderEvents } from '../views/start-list-events.ts';
import { renderPickupList } from '../views/pickup-list.ts';
import { renderStartList, startListNotice, type RangeForm } from '../views/start-list-page.ts';
import { EventParams, paramsOf, queryOf } from '../app-input.ts';
import { audited } from '../exports.ts';
import { BibRangeForm } from '../app-forms.schema.ts';

/** Runners per page: a page renders in tens of milliseconds whatever the list's length. */
const START_LIST_PAGE_SIZE = 100;

const StartListQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 2000 })),
  done: Type.Optional(Type.String({ maxLength: 100 })),
  given: Type.Optional(Type.String({ maxLength: 20 })),
});

export async function raceOf(ctx: AppContext, request: FastifyRequest): Promise<RaceEvent> {
  const { eventId } = paramsOf(request, EventParams);
  const race = await findRaceEvent(ctx.database.db, memberOf(request).organizationId, eventId);
  if (!race) throw new PageError('not_found', 'event');
  return race;
}

async function sendStartList(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  race: RaceEvent,
  status: number,
  form: RangeForm | null,
) {
  const query = queryOf(request, StartListQuery);
  const db = ctx.database.db;
  const cursor = decodeStartListCursor(query.after);
  // A later page shows only its runners: the counts over the whole field are on the first.
  const first = cursor === null;
  const [viewer, ranges, progress, totals, list] = await Promise.all([
    viewerOf(ctx, request),
    first ? listBibRanges(db, race.event.id) : [],
    first ? bibProgress(db, race) : [],
    first ? answerTotals(db, race) : [],
    readStartList(db, race, cursor, START_LIST_PAGE_SIZE),
  ]);
  return sendPage(
    reply,
    status,
    renderStartList({
      viewer,
      race,
      canManage: can(viewer.current.role, 'events'),
      ranges,
      progress,
      questions: race.event.additionalQuestions,
      totals,
      rows: list.rows,
      nextPage: list.next ? `after=${encodeStartListCursor(list.next)}` : null,
      paged: cursor !== null,
      notice: form ? null : startListNotice(query.done, query.given),
      form,
    }),
  );
}

export function showStartList(ctx: AppContext): Handler {
  return async (request, reply) => sendStartList(ctx, request, reply, await raceOf(ctx, request), 200, null);
}

export function saveBibRangesRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const inputs = race.ticketTypes.map((t) => ({
      ticketTypeId: t.id,
      first: readField(body, `first_${t.id}`, BibRangeForm.properties.first, errors),
      last: readField(body, `last_${t.id}`, BibRangeForm.properties.last, errors),
    }));
    const again = (rangeErrors: FieldErrors) => {
      const values = new Map(inputs.map((i) => [i.ticketTypeId, { first: i.first, last: i.last }]));
      return sendStartList(ctx, request, reply, race, 422, { values, errors: rangeErrors });
    };
    if (hasErrors(errors)) return again(errors);
    const outcome = await saveBibRanges(ctx, {
      ...actingOf(request),
      eventId: race.event.id,
      ranges: inputs,
    });
    if (!('done' in outcome)) {
      if (outcome.refused !== 'invalid') throw new PageError('not_found', 'event');
      return again(Object.fromEntries(outcome.errors.map((e) => [e.field, e.message])));
    }
    return seeOther(reply, `/events/${race.event.id}/start-list?done=ranges`);
  };
}

export function assignBibsRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const outcome = await assignBibs(ctx, { ...actingOf(request), eventId: race.event.id });
    if (!('done' in outcome)) throw new PageError('not_found', 'event');
    const given = outcome.done.reduce((sum, r) => sum + r.assigned, 0);
    return seeOther(reply, `/events/${race.event.id}/start-list?done=assigned&given=${given}`);
  };
}

export function downloadStartList(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const file = csvFileName(race);
    const rows = audited(
      ctx,
      request,
      {
        action: 'event.start_list_exported',
        target: { type: 'event', id: race.event.id },
        file,
        contacts: false,
      },
      walkStartList(ctx.database.db, race),
    );
    reply.header('Content-Disposition', `attachment; filename="${file}"`);
    reply.header('Cache-Control', 'no-store');
    reply.type('text/csv; charset=utf-8');
    return reply.send(Readable.from(startListCsv(race, rows)));
  };
}

export function showEvents(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const events = await listEventsOfOrganization(ctx.database.db, viewer.current.organizationId);
    return sendPage(
      reply,
      200,
      renderEvents({ viewer, events, canCreate: can(viewer.current.role, 'events') }),
    );
  };
}

const PickupQuery = Type.Object({
  order: Type.Optional(Type.Union([Type.Literal('bib'), Type.Literal('name')])),
});

/** GET /events/:eventId/pickup-list: every runner, by bib (the start list's order) or by name. */
export function showPickupList(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const order = queryOf(request, PickupQuery).order ?? 'bib';
    const db = ctx.database.db;
    const runners = new Map<string, StartListRow[]>(race.ticketTypes.map((t) => [t.id, []]));
    const rows =
      order === 'bib'
        ? walkStartList(db, race)
        : (async function* () {
            for (let t = 0; t < race.ticketTypes.length; t++) yield* walkTicketTypeByName(db, race, t);
          })();
    for await (const row of rows) runners.get(row.ticketTypeId)!.push(row);
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderPickupList({ viewer, race, order, runners }));
  };
}
