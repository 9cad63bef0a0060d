// The orders page's filters from its query string, as the order search takes them, with an error
// per field for what cannot be read (a date that is not YYYY-MM-DD, a cursor that was tampered
// with). Unknown statuses, channels and over-long text are errors too, never silently dropped.
// Deep import: the package root loads all of date-fns.
import { fromZonedTime } from 'date-fns-tz/fromZonedTime';
import { Type } from 'typebox';
import { ORDER_CHANNELS, ORDER_STATUSES, type OrderKey, type OrderSearch } from '../orders/index.ts';
import type { FieldErrors } from './form-body.ts';

export interface OrderFilterValues {
  event: string;
  status: string;
  channel: string;
  client: string;
  from: string;
  to: string;
  q: string;
}

export interface OrderFilters {
  values: OrderFilterValues;
  search: OrderSearch;
  after: OrderKey | undefined;
  errors: FieldErrors;
}

/** The page's query: each value one string (a repeated name is left out, as if not given). */
export const OrderFilterQuery = Type.Object({
  event: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  channel: Type.Optional(Type.String()),
  client: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  q: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
});

const ID = /^[a-z]{2,4}_[A-Za-z0-9]{8,64}$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const AFTER = /^(\d{1,15})\.(ord_[A-Za-z0-9]{8,64})$/;

function text(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A calendar day as YYYY-MM-DD, the day after it, or null when it is no real day. */
function day(value: string): { day: string; next: string } | null {
  const m = DAY.exec(value);
  if (!m) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (date.toISOString().slice(0, 10) !== value) return null;
  return { day: value, next: new Date(date.getTime() + 24 * 3600_000).toISOString().slice(0, 10) };
}

/** The filters of the query; days are the organization's (`timeZone`), from their first minute. */
export function readOrderFilters(query: Record<string, unknown>, timeZone: string): OrderFilters {
  const values: OrderFilterValues = {
    event: text(query, 'event'),
    status: text(query, 'status'),
    channel: text(query, 'channel'),
    client: text(query, 'client'),
    from: text(query, 'from'),
    to: text(query, 'to'),
    q: text(query, 'q'),
  };
  const errors: FieldErrors = {};
  const search: OrderSearch = {};
  if (values.event) {
    if (ID.test(values.event)) search.eventId = values.event;
    else errors.event = 'Choose an event from the list';
  }
  if (values.status) {
    if ((ORDER_STATUSES as readonly string[]).includes(values.status)) search.status = values.status;
    else errors.status = 'Choose a status from the list';
  }
  if (values.channel) {
    const channel = ORDER_CHANNELS.find((c) => c === values.channel);
    if (channel) search.channel = channel;
    else errors.channel = 'Choose a channel from the list';
  }
  if (values.client) {
    if (ID.test(values.client)) search.clientId = values.client;
    else errors.client = 'Choose a partner from the list';
  }
  for (const field of ['from', 'to'] as const) {
    if (!values[field]) continue;
    const date = day(values[field]);
    if (!date) errors[field] = 'Enter a date as YYYY-MM-DD, such as 2026-07-12';
    // "to" includes its whole day: up to the next day's start there
    else search[field] = fromZonedTime(`${field === 'to' ? date.next : date.day}T00:00`, timeZone);
  }
  if (values.q.length > 100) errors.q = 'Search for at most 100 characters';
  else if (values.q) search.q = values.q;
  const afterText = text(query, 'after');
  const m = AFTER.exec(afterText);
  const after = m ? { createdAt: new Date(Number(m[1])), id: m[2]! } : undefined;
  if (afterText && !m) errors.after = 'This page link is not valid: start again from the first page';
  return { values, search, after, errors };
}

/** The query string of the filters (without the page), for links that keep them. */
export function filterQuery(values: OrderFilterValues, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...extra })) if (value) params.set(name, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}
