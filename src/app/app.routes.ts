// The organizer app on the APP host: the sales overview and organization switch; orders (list,
// CSV, detail with its runners, runner corrections and transfers, refunds, confirmation resends,
// buyer erasure); sign-in, invitations, password reset
// and account; the development mailbox; developer settings (API clients, webhook endpoints, request
// log, integration checker); members; the audit log; and events with their checkout preview, start
// list, bib numbers, pickup list and runner exports (CSV, Excel); race-day check-in. Server-rendered pages in a scope of their own (forms, cookies, CSRF,
// security headers: app-scope.ts). Each route declares the permission it needs, checked
// before its handler against the one role table (app-access.ts, members/roles.ts).
// One handler per file group in routes/; this file only wires them.
import { showOrder } from './routes/order-detail.ts';
import { confirmRefund, submitRefund } from './routes/order-refund.ts';
import { resendConfirmationRoute } from './routes/order-confirmation.ts';
import { confirmBuyerErasure, submitBuyerErasure } from './routes/buyer-erasure.ts';
import { confirmPaymentRefund, submitPaymentRefund } from './routes/payment-refund.ts';
import { exportEventMoney, exportReconciliation, showEventMoney } from './routes/event-money.ts';
import { exportOrders, exportOrdersXlsx } from './routes/orders-csv.ts';
import { showOrders } from './routes/orders-list.ts';
import { showRunnerForm, submitCorrection, submitTransfer } from './routes/order-runners.ts';
import cookie from '@fastify/cookie';
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import type { Access } from './app-access.ts';
import { serveAppAsset } from './app-assets.ts';
import { showAuditLog } from './routes/audit-log.ts';
import { saveSettings, showSettings } from './routes/organization-settings.ts';
import {
  addTicketTypeRoute,
  changeStatus,
  confirmStatus,
  createEventRoute,
  showEditEvent,
  showEvent,
  showNewEvent,
  updateEventRoute,
  updateTicketTypeRoute,
} from './routes/events.ts';
import { showCheckoutPreview } from './routes/event-preview.ts';
import {
  getChanges,
  getRoster,
  postSync,
  searchRunners,
  serveCheckInAsset,
  serveCheckInWorker,
  showCheckIn,
  showCheckInEvents,
} from './routes/check-in.ts';
import { SYNC_BODY_LIMIT_BYTES } from './views/check-in-pages.ts';
import { STATUS_ACTIONS } from './routes/event-status.ts';
import { setUpAppScope } from './app-scope.ts';
import { inTimeZone } from './views/fields.ts';
import type { Handler } from './replies.ts';
import {
  changePasswordRoute,
  revokeOtherSessionsRoute,
  revokeSessionRoute,
  showAccount,
  showOverview,
  switchOrganizationRoute,
} from './routes/account.ts';
import {
  addDomain,
  confirmRevoke,
  regenerateKey,
  removeDomain,
  revokeClient,
  rotateSecret,
  showClient,
  updateDisplayName,
  updateScopes,
} from './routes/client-settings.ts';
import { createClient, showDevelopers, showNewClient } from './routes/developers.ts';
import { sendIntegrationTest, showIntegration } from './routes/integration-check.ts';
import { showInvitation, submitInvitation } from './routes/invitation.ts';
import { showRequestLog } from './routes/request-log.ts';
import { showMail, showMailbox } from './routes/mailbox.ts';
import {
  changeRoleRoute,
  confirmRemove,
  inviteMemberRoute,
  removeMemberRoute,
  revokeInvitationRoute,
  showMembers,
} from './routes/members.ts';
import {
  showNewPassword,
  showResetRequest,
  submitNewPassword,
  submitResetRequest,
} from './routes/password-reset.ts';
import { showSignIn, signOut, submitSignIn } from './routes/sign-in.ts';
import {
  assignBibsRoute,
  downloadStartList,
  saveBibRangesRoute,
  showEvents,
  showPickupList,
  showStartList,
} from './routes/start-list.ts';
import { exportRunnersCsv, exportRunnersXlsx } from './routes/runner-export.ts';
import { retryDeliveryRoute, sendTestEvent, showEndpoint } from './routes/webhook-deliveries.ts';
import {
  confirmDeleteEndpoint,
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  rotateEndpointSecret,
  showNewEndpoint,
  updateEndpoint,
} from './routes/webhooks.ts';

export async function registerAppRoutes(app: Host, ctx: AppContext): Promise<void> {
  // Cookies are parsed on the whole host, so the host's not-found page (app-scope.ts) sees the
  // session too; the admin API ignores them.
  await app.register(cookie);
  await app.register(async (scope) => {
    await setUpAppScope(scope, ctx);
    // each page is drawn in the organization's time zone (the access check has loaded the session)
    const route = (method: 'GET' | 'POST', url: string, access: Access, handler: Handler) =>
      scope.route({
        method,
        url,
        config: { access },
        handler: (request, reply) =>
          inTimeZone(request.appSession?.timeZone ?? 'UTC', () => handler(request, reply)),
      });

    route('GET', '/assets/:file', 'static', serveAppAsset);
    route('GET', '/', 'read', showOverview(ctx));
    route('POST', '/organizations/switch', 'member', switchOrganizationRoute(ctx));
    route('GET', '/orders', 'read', showOrders(ctx));
    route('GET', '/orders.csv', 'exports', exportOrders(ctx));
    route('GET', '/orders.xlsx', 'exports', exportOrdersXlsx(ctx));
    route('GET', '/orders/:orderId', 'read', showOrder(ctx));
    route('GET', '/orders/:orderId/refund', 'refunds', confirmRefund(ctx));
    route('POST', '/orders/:orderId/refund', 'refunds', submitRefund(ctx));
    route(
      'POST',
      '/orders/:orderId/resend-confirmation',
      'confirmation_resends',
      resendConfirmationRoute(ctx),
    );
    route('GET', '/orders/:orderId/erase-buyer', 'buyer_erasure', confirmBuyerErasure(ctx));
    route('POST', '/orders/:orderId/erase-buyer', 'buyer_erasure', submitBuyerErasure(ctx));
    route('GET', '/orders/:orderId/payments/:paymentId/refund', 'refunds', confirmPaymentRefund(ctx));
    route('POST', '/orders/:orderId/payments/:paymentId/refund', 'refunds', submitPaymentRefund(ctx));
    route(
      'GET',
      '/orders/:orderId/runners/:registrationId/correct',
      'runners',
      showRunnerForm(ctx, 'correct'),
    );
    route('POST', '/orders/:orderId/runners/:registrationId/correct', 'runners', submitCorrection(ctx));
    route(
      'GET',
      '/orders/:orderId/runners/:registrationId/transfer',
      'runners',
      showRunnerForm(ctx, 'transfer'),
    );
    route('POST', '/orders/:orderId/runners/:registrationId/transfer', 'runners', submitTransfer(ctx));

    route('GET', '/sign-in', 'public', showSignIn(ctx));
    route('POST', '/sign-in', 'public', submitSignIn(ctx));
    route('POST', '/sign-out', 'member', signOut(ctx));
    route('GET', '/invitations/:token', 'public', showInvitation(ctx));
    route('POST', '/invitations/:token', 'public', submitInvitation(ctx));
    route('GET', '/password-reset', 'public', showResetRequest(ctx));
    route('POST', '/password-reset', 'public', submitResetRequest(ctx));
    route('GET', '/password-reset/:token', 'public', showNewPassword(ctx));
    route('POST', '/password-reset/:token', 'public', submitNewPassword(ctx));

    route('GET', '/account', 'member', showAccount(ctx));
    route('POST', '/account/password', 'member', changePasswordRoute(ctx));
    route('POST', '/account/sessions/revoke-others', 'member', revokeOtherSessionsRoute(ctx));
    route('POST', '/account/sessions/:sessionId/revoke', 'member', revokeSessionRoute(ctx));

    // Development only: the handlers answer 404 in production or without the mailbox mailer.
    route('GET', '/dev/mailbox', 'public', showMailbox(ctx));
    route('GET', '/dev/mailbox/:id', 'public', showMail(ctx));

    route('GET', '/developers', 'read', showDevelopers(ctx));
    route('GET', '/developers/clients/new', 'developer_settings', showNewClient(ctx));
    route('POST', '/developers/clients', 'developer_settings', createClient(ctx));
    route('GET', '/developers/clients/:clientId', 'read', showClient(ctx));
    route('POST', '/developers/clients/:clientId/display-name', 'developer_settings', updateDisplayName(ctx));
    route('POST', '/developers/clients/:clientId/scopes', 'developer_settings', updateScopes(ctx));
    route('POST', '/developers/clients/:clientId/publishable-key', 'developer_settings', regenerateKey(ctx));
    route('POST', '/developers/clients/:clientId/domains/add', 'developer_settings', addDomain(ctx));
    route('POST', '/developers/clients/:clientId/domains/remove', 'developer_settings', removeDomain(ctx));
    route('POST', '/developers/clients/:clientId/rotate-secret', 'developer_settings', rotateSecret(ctx));
    route('GET', '/developers/clients/:clientId/revoke', 'developer_settings', confirmRevoke(ctx));
    route('POST', '/developers/clients/:clientId/revoke', 'developer_settings', revokeClient(ctx));

    route('GET', '/developers/webhooks/new', 'developer_settings', showNewEndpoint(ctx));
    route('POST', '/developers/webhooks', 'developer_settings', createEndpoint(ctx));
    route('GET', '/developers/webhooks/:endpointId', 'read', showEndpoint(ctx));
    route('POST', '/developers/webhooks/:endpointId', 'developer_settings', updateEndpoint(ctx));
    route('POST', '/developers/webhooks/:endpointId/disable', 'developer_settings', disableEndpoint(ctx));
    route('POST', '/developers/webhooks/:endpointId/enable', 'developer_settings', enableEndpoint(ctx));
    route(
      'POST',
      '/developers/webhooks/:endpointId/rotate-secret',
      'developer_settings',
      rotateEndpointSecret(ctx),
    );
    route('GET', '/developers/webhooks/:endpointId/delete', 'developer_settings', confirmDeleteEndpoint(ctx));
    route('POST', '/developers/webhooks/:endpointId/delete', 'developer_settings', deleteEndpoint(ctx));
    route('POST', '/developers/webhooks/:endpointId/test', 'developer_settings', sendTestEvent(ctx));
    route(
      'POST',
      '/developers/webhooks/:endpointId/deliveries/:deliveryId/retry',
      'developer_settings',
      retryDeliveryRoute(ctx),
    );
    route('GET', '/developers/requests', 'read', showRequestLog(ctx));
    route('GET', '/developers/integration', 'read', showIntegration(ctx));
    route(
      'POST',
      '/developers/integration/webhooks/:endpointId/test',
      'developer_settings',
      sendIntegrationTest(ctx),
    );

    route('GET', '/members', 'read', showMembers(ctx));
    route('POST', '/members/invitations', 'members', inviteMemberRoute(ctx));
    route('POST', '/members/invitations/:invitationId/revoke', 'members', revokeInvitationRoute(ctx));
    route('POST', '/members/:memberId/role', 'members', changeRoleRoute(ctx));
    route('GET', '/members/:memberId/remove', 'members', confirmRemove(ctx));
    route('POST', '/members/:memberId/remove', 'members', removeMemberRoute(ctx));

    route('GET', '/audit-log', 'audit_log', showAuditLog(ctx));
    route('GET', '/settings', 'organization_settings', showSettings(ctx));
    route('POST', '/settings', 'organization_settings', saveSettings(ctx));

    // Events and start lists: every member reads; their writes need the events permission.
    route('GET', '/events', 'read', showEvents(ctx));
    route('GET', '/events/new', 'events', showNewEvent(ctx));
    route('POST', '/events', 'events', createEventRoute(ctx));
    route('GET', '/events/:eventId', 'read', showEvent(ctx));
    route('GET', '/events/:eventId/edit', 'events', showEditEvent(ctx));
    route('GET', '/events/:eventId/preview', 'read', showCheckoutPreview(ctx));
    route('POST', '/events/:eventId', 'events', updateEventRoute(ctx));
    route('POST', '/events/:eventId/ticket-types', 'events', addTicketTypeRoute(ctx));
    route('POST', '/events/:eventId/ticket-types/:ticketTypeId', 'events', updateTicketTypeRoute(ctx));
    for (const action of STATUS_ACTIONS) {
      route('GET', `/events/:eventId/${action}`, 'events', confirmStatus(ctx, action));
      route('POST', `/events/:eventId/${action}`, 'events', changeStatus(ctx, action));
    }
    route('GET', '/events/:eventId/money', 'read', showEventMoney(ctx));
    route('GET', '/events/:eventId/money.csv', 'exports', exportEventMoney(ctx));
    route('GET', '/events/:eventId/reconciliation.csv', 'exports', exportReconciliation(ctx));
    route('GET', '/events/:eventId/start-list', 'read', showStartList(ctx));
    // Lists of every runner, to download or print: roles that may export (members/roles.ts).
    route('GET', '/events/:eventId/start-list.csv', 'exports', downloadStartList(ctx));
    route('GET', '/events/:eventId/pickup-list', 'exports', showPickupList(ctx));
    route('GET', '/events/:eventId/runners.csv', 'exports', exportRunnersCsv(ctx));
    route('GET', '/events/:eventId/runners.xlsx', 'exports', exportRunnersXlsx(ctx));
    route('POST', '/events/:eventId/bib-ranges', 'events', saveBibRangesRoute(ctx));
    route('POST', '/events/:eventId/bibs/assign', 'events', assignBibsRoute(ctx));

    // Race-day check-in: the page, what its script reads, and its worker (scope /check-in/).
    route('GET', '/check-in', 'check_in', showCheckInEvents(ctx));
    route('GET', '/check-in/sw.js', 'static', serveCheckInWorker());
    route('GET', '/check-in/assets/:file', 'static', serveCheckInAsset());
    route('GET', '/check-in/:eventId', 'check_in', showCheckIn(ctx));
    route('GET', '/check-in/:eventId/roster', 'check_in', getRoster(ctx));
    route('GET', '/check-in/:eventId/changes', 'check_in', getChanges(ctx));
    route('GET', '/check-in/:eventId/search', 'check_in', searchRunners(ctx));
    // The one JSON body of the app (a device's queue): its own scope, so forms stay the only
    // body every other route takes.
    await scope.register(async (json) => {
      json.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: SYNC_BODY_LIMIT_BYTES },
        (_request, body, done) => {
          try {
            done(null, JSON.parse(String(body)) as unknown);
          } catch {
            done(null, { unreadable: true });
          }
        },
      );
      json.route({
        method: 'POST',
        url: '/check-in/:eventId/sync',
        config: { access: 'check_in' },
        handler: postSync(ctx),
      });
    });
  });
}
