// Sales at a glance, assembled from the figures other modules compute.
export { loadSalesOverview } from './sales-overview.ts';
export type { AttentionItem, MoneyLine, SalesOverview } from './sales-overview.ts';
