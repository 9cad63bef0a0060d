// The payment step's folded summary, kept to what the buyer has chosen: each ticket, the fee for
// the chosen network, the donation and the total; who runs and who buys. Built with text nodes
// only: every value here was typed by the buyer.
import { all, one } from './dom.ts';
import { chosenMethod, money, orderTotals, type FormParts } from './form-parts.ts';
import { t as say } from './messages.ts';
import { methodNameOf } from './page-methods.ts';

function line(table: HTMLTableElement, label: string, amount: string, cls?: string): void {
  const row = table.insertRow();
  if (cls) row.className = cls;
  const th = document.createElement('th');
  th.setAttribute('scope', 'row');
  th.textContent = label;
  const td = document.createElement('td');
  td.className = 'num';
  td.textContent = amount;
  row.appendChild(th);
  row.appendChild(td);
}

function fact(facts: HTMLElement, term: string, text: string): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = text;
  facts.appendChild(dt);
  facts.appendChild(dd);
}

export function renderSummary(parts: FormParts): void {
  const { form } = parts;
  const table = one<HTMLTableElement>('[data-summary-table]', form);
  const facts = one<HTMLElement>('[data-summary-facts]', form);
  const count = one<HTMLElement>('[data-summary-count]', form);
  if (!table || !facts) return;
  const t = orderTotals(parts);
  table.textContent = '';
  parts.selects.forEach((s) => {
    for (let k = 0; k < (Number(s.value) || 0); k++)
      line(table, s.dataset.name || '', money(parts, Number(s.dataset.price)));
  });
  if (t.fee)
    line(table, say('serviceFee', { method: methodNameOf(chosenMethod(parts)) }), money(parts, t.fee));
  if (t.donation) line(table, say('donation'), money(parts, t.donation));
  line(table, say('total'), money(parts, t.total), 'total');
  if (count) count.textContent = say(t.count === 1 ? 'ticketOne' : 'ticketMany', { n: t.count });

  const buyer = all<HTMLInputElement>('[data-buyer] input', form).map((c) => c.value.trim());
  const runnerIsBuyer = one<HTMLInputElement>('[data-runner][type=checkbox]', form);
  const names = all<HTMLElement>('fieldset[data-item]', form).map((fs, i) => {
    const input = one<HTMLInputElement>('input[data-name]', fs);
    const name =
      i === 0 && runnerIsBuyer && runnerIsBuyer.checked ? buyer[0] : input ? input.value.trim() : '';
    return name + ' (' + (fs.dataset.label || '') + ')';
  });
  facts.textContent = '';
  fact(facts, say(names.length === 1 ? 'participantOne' : 'participantMany'), names.join(', '));
  fact(facts, say('buyer'), buyer.filter(Boolean).join(', '));
}
