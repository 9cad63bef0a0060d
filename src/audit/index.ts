// The audit log: one row per change, written in the change's transaction.
export { AUDIT_ACTIONS, listAuditEvents, OPERATOR_LABEL, recordAudit, withinReach } from './audit-log.ts';
export type { ActingOn, Actor, AuditAction, AuditEntry, AuditEventRow } from './audit-log.ts';
