// The review step: the order as a table (tickets, fee for the chosen network, donation, total),
// who takes part, who buys and how they pay, and the Pay button's amount. Built with text nodes
// only: every value here was typed by the buyer.
import { METHOD_NAMES } from '../../src/site/format.ts';
import { all, one } from './dom.ts';
import { chosenMethod, money, orderTotals, type FormParts } from './form-parts.ts';

function cell(row: HTMLTableRowElement, text: string, header: boolean): void {
  const c = document.createElement(header ? 'th' : 'td');
  if (header) c.setAttribute('scope', 'row');
  else c.className = 'num';
  c.textContent = text;
  row.appendChild(c);
}

function orderTable(parts: FormParts): HTMLTableElement {
  const t = orderTotals(parts);
  const table = document.createElement('table');
  table.className = 'summary';
  const caption = document.createElement('caption');
  caption.className = 'muted';
  caption.textContent = 'Your order';
  table.appendChild(caption);
  const line = (label: string, amount: number, cls?: string) => {
    const row = table.insertRow();
    if (cls) row.className = cls;
    cell(row, label, true);
    cell(row, money(parts, amount), false);
  };
  parts.selects.forEach((s) => {
    const n = Number(s.value) || 0;
    if (n) line(n + ' × ' + s.dataset.name, n * Number(s.dataset.price));
  });
  if (t.fee) line('Service fee (' + METHOD_NAMES[chosenMethod(parts)] + ')', t.fee);
  if (t.donation) line('Donation', t.donation);
  line('Total', t.total, 'total');
  return table;
}

function orderFacts(parts: FormParts): HTMLDListElement {
  const { form, payPhone } = parts;
  const facts = document.createElement('dl');
  facts.className = 'facts';
  const fact = (term: string, text: string) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = text;
    facts.appendChild(dt);
    facts.appendChild(dd);
  };
  const names = all<HTMLElement>('fieldset[data-item]', form).map((fs) => {
    const input = one<HTMLInputElement>('input[data-name]', fs);
    return (input ? input.value.trim() : '') + ' (' + (fs.dataset.label || '') + ')';
  });
  fact(names.length === 1 ? 'Participant' : 'Participants', names.join(', '));
  const buyer = all<HTMLInputElement>('[data-step="buyer"] input', form).map((c) => c.value.trim());
  fact('Buyer', buyer.filter(Boolean).join(', '));
  if (orderTotals(parts).total > 0 && payPhone)
    fact('Payment', METHOD_NAMES[chosenMethod(parts)] + ', ' + payPhone.value.trim());
  return facts;
}

export function renderReview(parts: FormParts): void {
  const box = one<HTMLElement>('[data-review]', parts.form);
  if (!box) return;
  box.textContent = '';
  box.appendChild(orderTable(parts));
  box.appendChild(orderFacts(parts));
  const pay = one<HTMLButtonElement>('[data-pay]', parts.form);
  if (pay) {
    const total = orderTotals(parts).total;
    pay.textContent = total > 0 ? 'Pay ' + money(parts, total) : 'Confirm registration';
    pay.dataset.busy = total > 0 ? 'Sending the payment prompt…' : 'Confirming…';
  }
}
