// The donation step: an optional gift to the organizer, in whole units of the event's currency.
import type { EventWithTickets } from '../../../events/events.ts';
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { html, type Html } from '../../../platform/html.ts';
import { textField } from '../fields.ts';

export function donationStep(found: EventWithTickets, values: FormValues, errors: Map<string, string>): Html {
  const { event, organization } = found;
  return textField({
    id: fieldId('donation_minor'),
    name: 'donation_minor',
    label: `Donation in ${event.currency} (optional)`,
    value: values.donation,
    error: errors.get('donation_minor'),
    hint: `Add a gift to ${event.organizerName || organization.name}, or leave it empty.`,
    extra: html` inputmode="numeric" autocomplete="off" data-donation`,
  });
}
