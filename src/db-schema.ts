// Every table of the service, for drizzle-kit's migration generator (drizzle.config.ts).
export * from './platform/platform.schema.ts';
export * from './organizations/organizations.schema.ts';
export * from './events/events.schema.ts';
export * from './auth/auth.schema.ts';
export * from './platform/jobs.schema.ts';
export * from './platform/idempotency.schema.ts';
export * from './checkout/checkout.schema.ts';
export * from './orders/orders.schema.ts';
export * from './webhooks/webhooks.schema.ts';
export * from './payments/payments.schema.ts';
export * from './members/members.schema.ts';
export * from './mail/mail.schema.ts';
export * from './audit/audit.schema.ts';
export * from './startlists/startlists.schema.ts';
export * from './confirmations/confirmations.schema.ts';
export * from './tickets/tickets.schema.ts';
export * from './checkin/checkin.schema.ts';
