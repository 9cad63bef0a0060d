// Sales at a glance and an event's money, assembled from the figures other modules compute.
export { loadEventMoney, methodLabel, reconciliationRows } from './event-money.ts';
export type { EventMoney, NetworkMoney, TicketTypeMoney } from './event-money.ts';
export { loadSalesOverview } from './sales-overview.ts';
export type { AttentionItem, MoneyLine, SalesOverview } from './sales-overview.ts';
