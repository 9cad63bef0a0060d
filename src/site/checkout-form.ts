// The checkout form as data: what the buyer typed (parsed from an urlencoded body), the
// createOrder input it becomes, the payment choice, and where each error is shown. Field names
// in the form are the paths createOrder names in its errors ('items[0].participant_name',
// 'buyer.email', 'waiver_accepted'), so an error lands next to its input without a mapping table.
import type { CheckoutSessionRow } from '../checkout/index.ts';
import {
  EMERGENCY_CONTACT_NAME,
  EMERGENCY_CONTACT_PHONE,
  feeFor,
  methodFee,
  type AdditionalQuestion,
  type EventWithTickets,
  type TicketTypeRow,
} from '../events/index.ts';
import { MAX_TICKETS_PER_ORDER, normalizePhone, type CreateOrderInput } from '../orders/index.ts';
import { isPaymentMethod, type PaymentMethod } from '../payments/index.ts';
import { currencyExponent, type FieldError } from '../platform/index.ts';
import { offeredNetworkOf, offersMethod, paidOnPage, type EventMethods } from './event-methods.ts';
import { msg } from './messages/current.ts';
import { offerOf, offerPhoneWords } from './offer-words.ts';
import { wrongNetworkMessage } from './payment-phone.ts';

export type FormBody = Record<string, string>;

export interface ItemValues {
  ticket_type_id: string;
  participant_name: string;
  answers: Record<string, string>;
  date_of_birth: string;
  /** ticket type id + ordinal within the type: keeps values when quantities change */
  key: string;
}

export interface FormValues {
  quantities: Map<string, number>;
  items: ItemValues[];
  /** "I am the runner": the first participant is the buyer, named from buyer.name */
  runnerIsBuyer: boolean;
  buyer: { name: string; email: string; phone: string };
  waiver_accepted: boolean;
  donation: string;
  payment_method: string;
  payment_phone: string;
}

/** The urlencoded body as a plain record; the first value of a repeated name wins. */
export function parseUrlEncoded(text: string): FormBody {
  const out: FormBody = Object.create(null) as FormBody;
  for (const [name, value] of new URLSearchParams(text)) {
    if (!(name in out)) out[name] = value;
  }
  return out;
}

/** An element id for a field path: 'items[0].participant_name' -> 'f-items-0-participant_name'. */
export function fieldId(field: string): string {
  return `f-${field
    .replace(/\[(\w+)\]/g, '-$1')
    .replace(/\./g, '-')
    .replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}

/** The checkout's three steps, in order; the payment step only when there is something to pay. */
export const STAGES = ['tickets', 'details', 'payment'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Which step holds a field: the server's errors open the step where the buyer can fix them. The
 * tickets step holds only the choice of tickets; the participants' questions sit with the buyer's.
 */
export function stageOf(field: string): Stage {
  if (field === 'payment_method' || field === 'payment_phone') return 'payment';
  if (field === 'items' || /^items\[\d+\]\.ticket_type_id$/.test(field)) return 'tickets';
  return 'details';
}

function emptyValues(session: Pick<CheckoutSessionRow, 'prefill'>): FormValues {
  const prefill = session.prefill ?? {};
  return {
    quantities: new Map(),
    items: [],
    runnerIsBuyer: true,
    buyer: {
      name: prefill.buyer_name ?? '',
      email: prefill.buyer_email ?? '',
      phone: prefill.buyer_phone ?? '',
    },
    waiver_accepted: false,
    donation: '',
    payment_method: '',
    payment_phone: '',
  };
}

const text = (body: FormBody, name: string) => (body[name] ?? '').slice(0, 500);

/**
 * Reads the form. Participants are rebuilt from the quantities (ticket type order, then ordinal),
 * taking what was typed for index i only when it was for the same ticket type.
 */
export function readForm(
  body: FormBody,
  ticketTypes: TicketTypeRow[],
  questions: AdditionalQuestion[],
  session: Pick<CheckoutSessionRow, 'prefill'>,
): FormValues {
  const initial = emptyValues(session);
  // A field the form did not send at all (not an emptied one) keeps the session's prefill.
  const buyerField = (name: 'name' | 'email' | 'phone') =>
    body[`buyer.${name}`] === undefined ? initial.buyer[name] : text(body, `buyer.${name}`);
  const quantities = new Map<string, number>();
  for (const tt of ticketTypes) {
    const raw = text(body, `qty.${tt.id}`).trim();
    const n = /^\d{1,2}$/.test(raw) ? Number(raw) : 0;
    if (n > 0) quantities.set(tt.id, Math.min(n, MAX_TICKETS_PER_ORDER));
  }
  const items: ItemValues[] = [];
  for (const tt of ticketTypes) {
    for (let k = 0; k < (quantities.get(tt.id) ?? 0); k++) {
      const i = items.length;
      const same = body[`items[${i}].ticket_type_id`] === tt.id;
      const value = (name: string) => (same ? text(body, `items[${i}].${name}`) : '');
      const answers: Record<string, string> = {};
      for (const q of questions) answers[q.key] = value(`answers.${q.key}`);
      items.push({
        ticket_type_id: tt.id,
        participant_name: value('participant_name'),
        answers,
        date_of_birth: value('date_of_birth').trim(),
        key: `${tt.id}-${k}`,
      });
    }
  }
  return {
    quantities,
    items,
    runnerIsBuyer: body.runner_is_buyer === 'yes',
    buyer: { name: buyerField('name'), email: buyerField('email'), phone: buyerField('phone') },
    waiver_accepted: body.waiver_accepted === 'yes',
    donation: text(body, 'donation_minor'),
    payment_method: text(body, 'payment_method'),
    // The number shown prefilled with the buyer's and left as it was follows the buyer's number.
    payment_phone:
      body.payment_phone_prefill !== undefined && body.payment_phone === body.payment_phone_prefill
        ? ''
        : text(body, 'payment_phone'),
  };
}

/** True when the participant fields sent were for exactly the tickets chosen. */
export function itemsMatch(body: FormBody, values: FormValues): boolean {
  let sent = 0;
  while (body[`items[${sent}].ticket_type_id`] !== undefined) sent++;
  return (
    sent === values.items.length &&
    values.items.every((it, i) => body[`items[${i}].ticket_type_id`] === it.ticket_type_id)
  );
}

/** The donation typed in whole units of `currency` (as its label asks), in minor units; null if not a number. */
export function parseDonation(raw: string, currency: string): number | null {
  const digits = raw.replace(/[\s,]/g, '');
  if (digits === '') return 0;
  return /^\d{1,12}$/.test(digits) ? Number(digits) * 10 ** currencyExponent(currency) : null;
}

/** The total the server will compute, for deciding whether payment details are needed. */
export function estimateTotal(values: FormValues, found: EventWithTickets, method: PaymentMethod): number {
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const offer = offerOf(found);
  const priced = offer.methods.find((m) => m.key === method) ?? offer.methods[0]!;
  let total = parseDonation(values.donation, found.event.currency) ?? 0;
  for (const item of values.items) {
    const tt = byId.get(item.ticket_type_id);
    if (tt)
      total += tt.priceMinor + feeFor(tt.priceMinor, methodFee(found.organization.fees, priced), offer.unit);
  }
  return total;
}

/**
 * The method the form names if the event offers it; none named, the event's only method; else null
 * (ask for one). A method the event does not offer is never taken for another.
 */
export function formMethod(offer: EventMethods, value: string): PaymentMethod | null {
  if (offersMethod(offer, value)) return value;
  return value === '' && offer.methods.length === 1 ? offer.first : null;
}

/**
 * Whether the buyer may leave their phone out: a free registration (tickets chosen, nothing to
 * pay) of an event that does not ask for it. The orders module's rule (order-rules.ts) is the same.
 */
export function phoneOptional(values: FormValues, found: EventWithTickets): boolean {
  if (found.event.phoneRequired || values.items.length === 0) return false;
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const free = values.items.every((item) => (byId.get(item.ticket_type_id)?.priceMinor ?? 0) === 0);
  return free && (parseDonation(values.donation, found.event.currency) ?? 0) === 0;
}

/** What the order records as participant i's name: the buyer's when the buyer runs. */
export function participantName(values: FormValues, index: number): string {
  return index === 0 && values.runnerIsBuyer ? values.buyer.name : values.items[index]!.participant_name;
}

export function toOrderInput(
  values: FormValues,
  session: Pick<CheckoutSessionRow, 'eventId'>,
  currency: string,
): CreateOrderInput {
  const donation = parseDonation(values.donation, currency);
  return {
    event_id: session.eventId,
    items: values.items.map((item, i) => {
      const answers = Object.fromEntries(Object.entries(item.answers).filter(([, v]) => v.trim() !== ''));
      return {
        ticket_type_id: item.ticket_type_id,
        participant_name: participantName(values, i),
        ...(Object.keys(answers).length > 0 && { answers }),
        ...(item.date_of_birth !== '' && { date_of_birth: item.date_of_birth }),
      };
    }),
    buyer: values.buyer,
    waiver_accepted: values.waiver_accepted,
    donation_minor: donation ?? 0,
    ...(isPaymentMethod(values.payment_method) && { payment_method: values.payment_method }),
  };
}

export interface PaymentChoice {
  method: PaymentMethod;
  phone: string;
}

/**
 * The payment method and number, with the problems the page reports before any order exists:
 * no method (an event with one method needs no choice), a number that is not one of the event's
 * country, one that takes no mobile money (a landline, a network the event does not offer), or a
 * number on another offered network. An empty payment number means the buyer's own; when that
 * one takes no mobile money, the payment number is asked for. A method paid on the
 * provider's page (card) takes no number.
 */
export function checkPayment(
  offer: EventMethods,
  methodValue: string,
  phoneValue: string,
  fallbackPhone: string,
): { choice: PaymentChoice | null; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const words = offerPhoneWords(offer);
  const phoneField = phoneValue.trim() !== '' ? 'payment_phone' : 'buyer.phone';
  const phone = phoneValue.trim() !== '' ? phoneValue : fallbackPhone;
  const msisdn = normalizePhone(phone, offer.country);
  const method = formMethod(offer, methodValue);
  // Card is typed on the provider's page: no number to check, whatever the field holds.
  if (method !== null && paidOnPage(offer, method)) return { choice: { method, phone: '' }, errors };
  if (method === null) {
    errors.push({ field: 'payment_method', message: msg().form.chooseHowToPay });
  }
  if (msisdn === null) {
    if (phoneField === 'payment_phone') {
      errors.push({ field: 'payment_phone', message: words.invalid });
    }
  } else if (offeredNetworkOf(offer, msisdn) === null) {
    const own = phoneField === 'buyer.phone';
    errors.push({
      field: 'payment_phone',
      message: own ? words.ownNotMobileMoney : words.notMobileMoney,
    });
  } else if (method !== null) {
    const message = wrongNetworkMessage(offer, msisdn, method, words);
    if (message !== null) {
      errors.push({ field: phoneField === 'payment_phone' ? 'payment_phone' : 'payment_method', message });
    }
  }
  if (errors.length > 0 || msisdn === null || method === null) return { choice: null, errors };
  return { choice: { method, phone }, errors };
}

/** A question's label in the buyer's language: the built-in ones have their own words. */
export function questionLabel(q: AdditionalQuestion): string {
  const f = msg().form;
  if (q.key === EMERGENCY_CONTACT_NAME) return f.emergencyContactName;
  if (q.key === EMERGENCY_CONTACT_PHONE) return f.emergencyContactPhone;
  return q.label;
}

/** A field's name as the buyer reads it (without its participant's number), and that number. */
function fieldName(field: string, found: EventWithTickets): { participant: number | null; name: string } {
  const f = msg().fields;
  const item = /^items\[(\d+)\]\.(.+)$/.exec(field);
  if (item) {
    const participant = Number(item[1]) + 1;
    const rest = item[2]!;
    const answer = /^answers\.(.+)$/.exec(rest);
    const question = answer && found.event.additionalQuestions.find((q) => q.key === answer[1]);
    const names: Record<string, string> = {
      participant_name: f.fullName,
      date_of_birth: f.dateOfBirth,
      ticket_type_id: f.ticket,
    };
    return {
      participant,
      name: answer
        ? question
          ? questionLabel(question)
          : answer[1]!
        : (names[rest] ?? f.participantN(participant)),
    };
  }
  const labels: Record<string, string> = {
    items: f.items,
    'buyer.name': f.buyerName,
    'buyer.email': f.email,
    'buyer.phone': f.phone,
    waiver_accepted: f.waiver,
    donation_minor: f.donation,
    payment_method: f.paymentMethod,
    payment_phone: f.paymentPhone,
  };
  return { participant: null, name: labels[field] ?? field };
}

/** createOrder's terse messages ('is required') read as sentences next to their field. */
export function friendlyMessage(field: string, message: string, found: EventWithTickets): string {
  if (/^[A-Z]/.test(message)) return message;
  const f = msg().fields;
  const { name } = fieldName(field, found);
  const subject = name.charAt(0).toUpperCase() + name.slice(1);
  if (/^is required( \(.*\))?$/.test(message)) return f.isRequired(subject);
  if (/^(is|must) /.test(message)) return f.isOrMust(subject, message);
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** Where an error is shown: item ticket errors belong to the tickets list. */
export function errorAnchor(field: string): string {
  if (/^items\[\d+\]\.ticket_type_id$/.test(field)) return 'items';
  return field;
}
