// The donation, on the details step: an optional gift to the organizer, in whole units of the
// event's currency, folded away until the buyer opens it (open when it holds a value or an error).
import type { EventWithTickets } from '../../../events/index.ts';
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { attr, html, type Html } from '../../../platform/index.ts';
import { textField } from '../fields.ts';
import { msg } from '../../messages/current.ts';

export function donationStep(found: EventWithTickets, values: FormValues, errors: Map<string, string>): Html {
  const { event, organization } = found;
  const error = errors.get('donation_minor');
  const m = msg().form;
  const field = textField({
    id: fieldId('donation_minor'),
    name: 'donation_minor',
    label: m.donationLabel(event.currency),
    value: values.donation,
    error,
    hint: m.donationHint(event.organizerName || organization.name),
    extra: html` inputmode="numeric" autocomplete="off" data-donation`,
  });
  return html`<details class="donation" ${attr('open', values.donation.trim() !== '' || error !== undefined)}>
    <summary>${m.addDonation}</summary>
    ${field}
  </details>`;
}
