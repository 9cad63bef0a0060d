// The security suite over every organizer app route: the table below says which permission each
// needs; the last test fails when the APP host serves a route (outside /admin/v1) missing from it.
// Signed out: 303 to /sign-in. No or a wrong CSRF token, or a foreign Origin: 403 and nothing
// changed. Each role against each route bound to a permission beyond reading: 403 and nothing
// changed exactly when the role table (src/members/roles.ts) withholds it. Another organization's
// id: the same 404 as a missing one.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { findApiClient, listApiClients } from '../../src/auth/clients.ts';
import { createTestDelivery, listDeliveries } from '../../src/webhooks/webhook-deliveries.ts';
import { insertWebhookEndpoint, listWebhookEndpoints } from '../../src/webhooks/webhook-endpoints.ts';
import { webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { refunds } from '../../src/payments/payments.schema.ts';
import { registrationsOf } from '../../src/orders/order-out.ts';
import { tickets } from '../../src/tickets/tickets.schema.ts';
import { createInvitation, listPendingInvitations } from '../../src/members/invitations.ts';
import { listOrganizationMembers } from '../../src/members/members.ts';
import { listMemberSessions } from '../../src/members/sessions.ts';
import { APP_STYLES } from '../../src/app/app-assets.ts';
import { can, MEMBER_ROLES, type MemberRole, type Permission } from '../../src/members/roles.ts';
import { listBibRanges, writeBibRanges } from '../../src/startlists/bib-numbers.ts';
import { findRaceEvent } from '../../src/startlists/race-event.ts';
import { findEvent, listEventsOfOrganization } from '../../src/events/events.ts';
import { bibs } from '../../src/startlists/startlists.schema.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { registeredRoutes } from '../helpers/registered-routes.ts';
import {
  Agent,
  locationOf,
  makeMember,
  makeOrder,
  signIn,
  type Fields,
  type TestMember,
} from './app-helpers.ts';
import { insertSuccessfulPayment } from './payment-fixtures.ts';

/** public: anyone; member: every signed-in member; otherwise the permission the route needs */
type Access = 'public' | 'member' | Permission;

interface RouteCase {
  method: 'GET' | 'POST';
  path: string;
  access: Access;
  /** fields a write of this route would accept */
  fields?: Fields;
  /** a download of personal data: when it is served, its audit entry is the one change */
  audited?: true;
}

const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/assets/:file', access: 'public' },
  { method: 'GET', path: '/', access: 'read' },
  { method: 'POST', path: '/organizations/switch', access: 'member', fields: { organization_id: 'org_x' } },
  { method: 'GET', path: '/sign-in', access: 'public' },
  { method: 'POST', path: '/sign-in', access: 'public', fields: { email: 'a@example.org', password: 'x' } },
  { method: 'POST', path: '/sign-out', access: 'member' },
  { method: 'GET', path: '/invitations/:token', access: 'public' },
  {
    method: 'POST',
    path: '/invitations/:token',
    access: 'public',
    fields: { password: 'long enough password' },
  },
  { method: 'GET', path: '/password-reset', access: 'public' },
  { method: 'POST', path: '/password-reset', access: 'public', fields: { email: 'a@example.org' } },
  { method: 'GET', path: '/password-reset/:token', access: 'public' },
  {
    method: 'POST',
    path: '/password-reset/:token',
    access: 'public',
    fields: { password: 'long enough password' },
  },
  { method: 'GET', path: '/account', access: 'member' },
  { method: 'POST', path: '/account/password', access: 'member', fields: { current: 'x', next: 'y' } },
  { method: 'POST', path: '/account/sessions/revoke-others', access: 'member' },
  { method: 'POST', path: '/account/sessions/:sessionId/revoke', access: 'member' },
  { method: 'GET', path: '/dev/mailbox', access: 'public' },
  { method: 'GET', path: '/dev/mailbox/:id', access: 'public' },
  { method: 'GET', path: '/developers', access: 'read' },
  { method: 'GET', path: '/developers/clients/new', access: 'developer_settings' },
  {
    method: 'POST',
    path: '/developers/clients',
    access: 'developer_settings',
    fields: { name: 'Shop', scopes: ['events:read'] },
  },
  { method: 'GET', path: '/developers/clients/:clientId', access: 'read' },
  {
    method: 'POST',
    path: '/developers/clients/:clientId/display-name',
    access: 'developer_settings',
    fields: { display_name: 'Routes shop' },
  },
  {
    method: 'POST',
    path: '/developers/clients/:clientId/scopes',
    access: 'developer_settings',
    fields: { scopes: ['events:read'] },
  },
  { method: 'POST', path: '/developers/clients/:clientId/publishable-key', access: 'developer_settings' },
  {
    method: 'POST',
    path: '/developers/clients/:clientId/domains/add',
    access: 'developer_settings',
    fields: { list: 'allowed_domains', allowed_domain: 'https://new.example.org' },
  },
  {
    method: 'POST',
    path: '/developers/clients/:clientId/domains/remove',
    access: 'developer_settings',
    fields: { list: 'allowed_domains', origin: 'https://shop.example.org' },
  },
  { method: 'POST', path: '/developers/clients/:clientId/rotate-secret', access: 'developer_settings' },
  { method: 'GET', path: '/developers/clients/:clientId/revoke', access: 'developer_settings' },
  { method: 'POST', path: '/developers/clients/:clientId/revoke', access: 'developer_settings' },
  { method: 'GET', path: '/developers/webhooks/new', access: 'developer_settings' },
  {
    method: 'POST',
    path: '/developers/webhooks',
    access: 'developer_settings',
    fields: { url: 'https://hooks.example.org/x', events: ['order.paid'] },
  },
  { method: 'GET', path: '/developers/webhooks/:endpointId', access: 'read' },
  {
    method: 'POST',
    path: '/developers/webhooks/:endpointId',
    access: 'developer_settings',
    fields: { url: 'https://hooks.example.org/y', events: ['order.paid'] },
  },
  { method: 'POST', path: '/developers/webhooks/:endpointId/disable', access: 'developer_settings' },
  { method: 'POST', path: '/developers/webhooks/:endpointId/enable', access: 'developer_settings' },
  { method: 'POST', path: '/developers/webhooks/:endpointId/rotate-secret', access: 'developer_settings' },
  { method: 'GET', path: '/developers/webhooks/:endpointId/delete', access: 'developer_settings' },
  { method: 'POST', path: '/developers/webhooks/:endpointId/delete', access: 'developer_settings' },
  { method: 'POST', path: '/developers/webhooks/:endpointId/test', access: 'developer_settings' },
  {
    method: 'POST',
    path: '/developers/webhooks/:endpointId/deliveries/:deliveryId/retry',
    access: 'developer_settings',
  },
  { method: 'GET', path: '/developers/integration', access: 'read' },
  { method: 'POST', path: '/developers/integration/webhooks/:endpointId/test', access: 'developer_settings' },
  { method: 'GET', path: '/orders', access: 'read' },
  { method: 'GET', path: '/orders.csv', access: 'exports', audited: true },
  { method: 'GET', path: '/orders.xlsx', access: 'exports', audited: true },
  { method: 'GET', path: '/orders/:orderId', access: 'read' },
  { method: 'GET', path: '/orders/:orderId/runners/:registrationId/correct', access: 'runners' },
  {
    method: 'POST',
    path: '/orders/:orderId/runners/:registrationId/correct',
    access: 'runners',
    fields: { participant_name: 'Renamed Runner' },
  },
  { method: 'GET', path: '/orders/:orderId/runners/:registrationId/transfer', access: 'runners' },
  {
    method: 'POST',
    path: '/orders/:orderId/runners/:registrationId/transfer',
    access: 'runners',
    fields: { participant_name: 'Someone Else', email: 'someone@example.org' },
  },
  { method: 'GET', path: '/orders/:orderId/refund', access: 'refunds' },
  { method: 'POST', path: '/orders/:orderId/refund', access: 'refunds' },
  { method: 'POST', path: '/orders/:orderId/resend-confirmation', access: 'confirmation_resends' },
  { method: 'GET', path: '/orders/:orderId/erase-buyer', access: 'buyer_erasure' },
  { method: 'POST', path: '/orders/:orderId/erase-buyer', access: 'buyer_erasure' },
  { method: 'GET', path: '/orders/:orderId/payments/:paymentId/refund', access: 'refunds' },
  { method: 'POST', path: '/orders/:orderId/payments/:paymentId/refund', access: 'refunds' },
  { method: 'GET', path: '/members', access: 'read' },
  {
    method: 'POST',
    path: '/members/invitations',
    access: 'members',
    fields: { email: 'routes-invitee@example.org', role: 'viewer' },
  },
  { method: 'POST', path: '/members/invitations/:invitationId/revoke', access: 'members' },
  { method: 'POST', path: '/members/:memberId/role', access: 'members', fields: { role: 'viewer' } },
  { method: 'GET', path: '/members/:memberId/remove', access: 'members' },
  { method: 'POST', path: '/members/:memberId/remove', access: 'members' },
  { method: 'GET', path: '/audit-log', access: 'audit_log' },
  { method: 'GET', path: '/settings', access: 'organization_settings' },
  { method: 'POST', path: '/settings', access: 'organization_settings' },
  { method: 'GET', path: '/developers/requests', access: 'read' },
  { method: 'GET', path: '/events', access: 'read' },
  { method: 'GET', path: '/events/new', access: 'events' },
  { method: 'POST', path: '/events', access: 'events', fields: { name: 'Routes Run' } },
  { method: 'GET', path: '/events/:eventId', access: 'read' },
  { method: 'GET', path: '/events/:eventId/edit', access: 'events' },
  { method: 'GET', path: '/events/:eventId/preview', access: 'read' },
  { method: 'POST', path: '/events/:eventId', access: 'events', fields: { name: 'Renamed' } },
  { method: 'POST', path: '/events/:eventId/ticket-types', access: 'events', fields: { new_name: 'Walk' } },
  {
    method: 'POST',
    path: '/events/:eventId/ticket-types/:ticketTypeId',
    access: 'events',
    fields: { name: 'Renamed' },
  },
  ...(['publish', 'close', 'cancel'] as const).flatMap((action): RouteCase[] => [
    { method: 'GET', path: `/events/:eventId/${action}`, access: 'events' },
    { method: 'POST', path: `/events/:eventId/${action}`, access: 'events' },
  ]),
  { method: 'GET', path: '/events/:eventId/money', access: 'read' },
  { method: 'GET', path: '/events/:eventId/money.csv', access: 'exports', audited: true },
  { method: 'GET', path: '/events/:eventId/reconciliation.csv', access: 'exports', audited: true },
  { method: 'GET', path: '/events/:eventId/start-list', access: 'read' },
  { method: 'GET', path: '/events/:eventId/start-list.csv', access: 'exports', audited: true },
  { method: 'GET', path: '/events/:eventId/pickup-list', access: 'exports' },
  { method: 'GET', path: '/events/:eventId/runners.csv', access: 'exports', audited: true },
  { method: 'GET', path: '/events/:eventId/runners.xlsx', access: 'exports', audited: true },
  {
    method: 'POST',
    path: '/events/:eventId/bib-ranges',
    access: 'events',
    fields: { first_x: '1', last_x: '9' },
  },
  { method: 'POST', path: '/events/:eventId/bibs/assign', access: 'events' },
  { method: 'GET', path: '/check-in', access: 'check_in' },
  { method: 'GET', path: '/check-in/sw.js', access: 'public' },
  { method: 'GET', path: '/check-in/assets/:file', access: 'public' },
  { method: 'GET', path: '/check-in/:eventId', access: 'check_in' },
  { method: 'GET', path: '/check-in/:eventId/roster', access: 'check_in' },
  { method: 'GET', path: '/check-in/:eventId/changes', access: 'check_in' },
  { method: 'GET', path: '/check-in/:eventId/search', access: 'check_in' },
  { method: 'POST', path: '/check-in/:eventId/sync', access: 'check_in' },
];

let h: Harness;
let mine: TestPartner;
let theirs: TestPartner;
let owner: TestMember;
let ownerAgent: Agent;
/** a signed-in member of each role, in the member's own organization */
const roleAgents = {} as Record<MemberRole, Agent>;
let myTarget: TestMember;
let theirTarget: TestMember;
let myInvitationId: string;
let theirInvitationId: string;
let otherSessionId: string;
let ownSessionId: string;
/** an endpoint and one of its deliveries in each organization (made directly: no URL check) */
const hooks = {} as Record<'mine' | 'theirs', { endpointId: string; deliveryId: string }>;
/** an order in each organization */
const orderIds = {} as Record<'mine' | 'theirs', string>;
/** the registration of each of those orders */
const registrationIds = {} as Record<'mine' | 'theirs', string>;
/** a successful payment of each of those orders */
const paymentIds = {} as Record<'mine' | 'theirs', string>;
/** an event with one paid runner in each organization */
const eventIds = {} as Record<'mine' | 'theirs', string>;
/** the first ticket type of each of those events */
const ticketTypeIds = {} as Record<'mine' | 'theirs', string>;

before(async () => {
  h = await startHarness();
  mine = await makePartner(h);
  theirs = await makePartner(h);
  owner = await makeMember(h, mine.organizationId, 'owner');
  ownerAgent = await signIn(h, owner);
  for (const role of MEMBER_ROLES) {
    roleAgents[role] =
      role === 'owner' ? ownerAgent : await signIn(h, await makeMember(h, mine.organizationId, role));
  }
  myTarget = await makeMember(h, mine.organizationId, 'developer');
  theirTarget = await makeMember(h, theirs.organizationId, 'developer');
  const invite = async (organizationId: string) =>
    (
      await createInvitation(h.service.ctx.database.db, {
        organizationId,
        email: 'routes-pending@example.org',
        role: 'viewer',
        invitedBy: null,
        now: h.clock.now(),
      })
    ).invitation.id;
  myInvitationId = await invite(mine.organizationId);
  theirInvitationId = await invite(theirs.organizationId);
  const stranger = await makeMember(h, theirs.organizationId, 'owner');
  await signIn(h, stranger);
  const now = h.clock.now();
  const db = h.service.ctx.database.db;
  otherSessionId = (await listMemberSessions(db, stranger.memberId, now, h.config.appSessions))[0]!.id;
  ownSessionId = (await listMemberSessions(db, owner.memberId, now, h.config.appSessions))[0]!.id;
  for (const [whose, partner] of [
    ['mine', mine],
    ['theirs', theirs],
  ] as const) {
    const { endpoint } = await insertWebhookEndpoint(db, {
      organizationId: partner.organizationId,
      url: 'https://hooks.example.org/in',
      eventTypes: ['order.paid'],
      now,
    });
    // failed, as if its attempts were used up: nothing would send it unless a route did
    const delivery = await createTestDelivery(db, endpoint, now);
    await h.service.ctx.database.db
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, delivery.id));
    hooks[whose] = { endpointId: endpoint.id, deliveryId: delivery.id };
    const order = await makeOrder(h, partner, { eventId: (await makeEvent(h, partner)).id });
    orderIds[whose] = order.id;
    registrationIds[whose] = order.registrations[0]!.id;
    paymentIds[whose] = (
      await insertSuccessfulPayment(h, { organizationId: partner.organizationId, orderId: orderIds[whose] })
    ).id;
    const event = await makeEvent(h, partner);
    const race = (await findRaceEvent(db, partner.organizationId, event.id))!;
    await seedRunners(db, event, race.ticketTypes[0]!, [{ name: 'Routes Runner' }]);
    // a range to lose: a write that got through would clear it (the fields name no ticket type)
    await h.service.ctx.database.transaction((tx) =>
      writeBibRanges(tx, race, [{ ticketTypeId: race.ticketTypes[0]!.id, first: 1, last: 9 }], now),
    );
    eventIds[whose] = event.id;
    ticketTypeIds[whose] = race.ticketTypes[0]!.id;
  }
});
after(() => h.close());

/** The path with each parameter filled: the member's own objects, or another organization's. */
function fill(path: string, whose: 'mine' | 'theirs'): string {
  return path
    .replace(':clientId', whose === 'mine' ? mine.clientId : theirs.clientId)
    .replace(':sessionId', whose === 'mine' ? ownSessionId : otherSessionId)
    .replace(':endpointId', hooks[whose].endpointId)
    .replace(':deliveryId', hooks[whose].deliveryId)
    .replace(':orderId', orderIds[whose])
    .replace(':registrationId', registrationIds[whose])
    .replace(':paymentId', paymentIds[whose])
    .replace(':memberId', whose === 'mine' ? myTarget.memberId : theirTarget.memberId)
    .replace(':invitationId', whose === 'mine' ? myInvitationId : theirInvitationId)
    .replace(':token', 'T0kenThatNamesNothing0123456789abcdefghijk')
    .replace(':eventId', eventIds[whose])
    .replace(':ticketTypeId', ticketTypeIds[whose])
    .replace(':id', 'mail_ZZZZZZZZZZZZZZZZZZZZZZZZ')
    .replace(':file', APP_STYLES.path.slice('/assets/'.length));
}

/** What a refused write must leave as it was: the clients, members and invitations of both organizations. */
async function clientState(options: { audit?: boolean } = {}) {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const endpoints = async () => {
    const found = [];
    for (const partner of [mine, theirs]) {
      for (const endpoint of await listWebhookEndpoints(db, partner.organizationId)) {
        const deliveries = await listDeliveries(db, endpoint, { limit: 50 });
        found.push(endpoint, deliveries.rows);
      }
    }
    return found;
  };
  const reads: (() => unknown)[] = [
    () => findApiClient(db, mine.clientId),
    async () => (await listApiClients(db, mine.organizationId)).length,
    endpoints,
    async () =>
      options.audit === false
        ? null
        : (await listAuditEvents(db, mine.organizationId, { limit: 50 })).rows.length,
    () => listOrganizationMembers(db, mine.organizationId),
    () => listOrganizationMembers(db, theirs.organizationId),
    () => listPendingInvitations(db, mine.organizationId, now),
    () => listPendingInvitations(db, theirs.organizationId, now),
    () => listBibRanges(db, eventIds.mine),
    () => listBibRanges(db, eventIds.theirs),
    () => db.select().from(bibs),
    // the events of both organizations with their ticket types: a refused event write changes none
    () => findEvent(db, eventIds.mine),
    () => findEvent(db, eventIds.theirs),
    async () => (await listEventsOfOrganization(db, mine.organizationId)).length,
    // a refused refund write asks for none
    () => db.select().from(refunds),
    // a refused correction or transfer changes no runner and no ticket
    async () => [...(await registrationsOf(db, [orderIds.mine, orderIds.theirs])).values()],
    () => db.select().from(tickets),
  ];
  // PostgreSQL answers them at once over its connections (a third of the time); PGlite runs one
  // statement at a time, and queued all at once they take it longer than one after another.
  if (h.service.ctx.database.kind !== 'pglite')
    return JSON.stringify(await Promise.all(reads.map((r) => r())));
  const state = [];
  for (const read of reads) state.push(await read());
  return JSON.stringify(state);
}

/**
 * A test starts from the state the test before it ended with, when that one compared it and
 * passed: nothing runs between two tests, so reading it again would only repeat the read.
 * Otherwise (the first test of a route, one after a test that compares nothing) it is read afresh.
 */
let checked: { audit: boolean; state: string } | undefined;
let carried: typeof checked;
beforeEach(() => {
  carried = checked;
  checked = undefined;
});

async function stateBefore(options: { audit?: boolean } = {}): Promise<string> {
  const audit = options.audit !== false;
  return carried?.audit === audit ? carried.state : clientState(options);
}

/** Fails unless the state is still `before`; then hands it on to the next test. */
async function assertUnchanged(before: string, options: { audit?: boolean } = {}, message?: string) {
  const state = await clientState(options);
  assert.equal(state, before, message);
  checked = { audit: options.audit !== false, state };
}

describe('security suite over every app route', () => {
  for (const route of ROUTES) {
    const name = `${route.method} ${route.path}`;
    const isPost = route.method === 'POST';

    if (route.access !== 'public') {
      test(`${name}: signed out is sent to sign in`, async () => {
        const agent = new Agent(h);
        const url = fill(route.path, 'mine');
        const res = isPost ? await agent.post(url, route.fields) : await agent.get(url);
        assert.equal(res.statusCode, 303, res.body);
        const location = locationOf(res);
        assert.ok(location === '/sign-in' || location.startsWith('/sign-in?next='), location);
        if (!isPost && url !== '/') assert.equal(location, `/sign-in?next=${encodeURIComponent(url)}`);
      });
    }

    if (isPost) {
      test(`${name}: no CSRF token, a wrong one or a foreign Origin is refused with 403`, async () => {
        const before = await stateBefore();
        const agent = route.access === 'public' ? new Agent(h) : ownerAgent;
        if (route.access === 'public') await agent.get('/sign-in'); // the double-submit cookie
        const url = fill(route.path, 'mine');
        const valid = agent.csrf!;
        const attempts: { fields: Fields; headers: Record<string, string> }[] = [
          { fields: { ...route.fields, _csrf: '' }, headers: {} },
          { fields: { ...route.fields, _csrf: 'wrong-token-0123456789abcdef' }, headers: {} },
          { fields: { ...route.fields, _csrf: valid }, headers: { origin: 'https://evil.example' } },
        ];
        for (const attempt of attempts) {
          const res = await agent.post(url, attempt.fields, attempt.headers);
          assert.equal(res.statusCode, 403, `${JSON.stringify(attempt.headers)} ${res.body.slice(0, 200)}`);
          assert.match(res.body, /expired or came from another site/);
          assert.match(res.body, /Nothing was changed/);
        }
        agent.csrf = valid;
        await assertUnchanged(before, {}, 'nothing changed');
        if (route.access !== 'public')
          assert.equal((await ownerAgent.get('/')).statusCode, 200, 'still signed in');
      });
    }

    const permission = route.access;
    if (permission !== 'public' && permission !== 'read' && permission !== 'member') {
      for (const role of MEMBER_ROLES) {
        if (!can(role, permission)) {
          test(`${name}: ${role} without ${permission}, 403 and nothing changes`, async () => {
            const before = await stateBefore();
            const agent = roleAgents[role];
            const url = fill(route.path, 'mine');
            const res = isPost ? await agent.post(url, route.fields) : await agent.get(url);
            assert.equal(res.statusCode, 403, res.body.slice(0, 300));
            assert.match(res.body, /Your role cannot do this/);
            await assertUnchanged(before);
          });
        } else {
          // Allowed through to the handler, which then refuses harmlessly: another organization's
          // id is 404, a form with no fields is the form again; nothing changes either way.
          test(`${name}: ${role} with ${permission}, not refused`, async () => {
            const db = h.service.ctx.database.db;
            const entries = async () =>
              (await listAuditEvents(db, mine.organizationId, { limit: 50 })).rows.length;
            const audit = route.audited ? { audit: false } : {};
            const [before, entriesBefore] = [await stateBefore(audit), await entries()];
            const agent = roleAgents[role];
            const url = fill(route.path, 'theirs');
            const res = isPost ? await agent.post(url, {}) : await agent.get(url);
            assert.notEqual(res.statusCode, 403, res.body.slice(0, 300));
            assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 300)}`);
            assert.doesNotMatch(res.body, /Your role cannot do this/);
            await assertUnchanged(before, audit);
            // a download served (no id of another organization to refuse) is audited, once
            if (route.audited)
              assert.equal(await entries(), entriesBefore + (res.statusCode === 200 ? 1 : 0));
          });
        }
      }
    }

    if (/:clientId|:sessionId|:endpointId|:memberId|:invitationId|:orderId|:eventId/.test(route.path)) {
      test(`${name}: another organization's or member's id is the same 404 as a missing one`, async () => {
        const before = await stateBefore();
        const foreign = fill(route.path, 'theirs');
        const missing = route.path
          .replace(':clientId', 'cli_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':sessionId', 'ast_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':endpointId', 'whe_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':deliveryId', 'whd_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':orderId', 'ord_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':registrationId', 'reg_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':paymentId', 'pay_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':memberId', 'mem_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':invitationId', 'inv_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':eventId', 'evt_ZZZZZZZZZZZZZZZZZZZZZZZZ')
          .replace(':ticketTypeId', 'tt_ZZZZZZZZZZZZZZZZZZZZZZZZ');
        const answers = [];
        for (const url of [foreign, missing]) {
          const res = isPost ? await ownerAgent.post(url, route.fields) : await ownerAgent.get(url);
          assert.equal(res.statusCode, 404, `${url}: ${res.body.slice(0, 300)}`);
          answers.push(res.body.replace(/name="_csrf" value="[^"]+"/g, ''));
        }
        assert.equal(answers[0], answers[1]);
        await assertUnchanged(before);
        const theirClient = await findApiClient(h.service.ctx.database.db, theirs.clientId);
        assert.equal(theirClient?.revokedAt, null);
        const theirMembers = await listOrganizationMembers(h.service.ctx.database.db, theirs.organizationId);
        assert.ok(theirMembers.some((m) => m.memberId === theirTarget.memberId && m.role === 'developer'));
      });
    }
  }

  test('the table lists every route the APP host serves outside the admin API', () => {
    const served = registeredRoutes(h.service.app, '/').filter(
      (r) => !/^[A-Z]+ \/(admin\/v1|healthz|readyz)(\/|$)/.test(r),
    );
    const listed = ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    assert.deepEqual(served, listed);
  });
});
