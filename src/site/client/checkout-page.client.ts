// The hosted checkout's one first-party script (progressive enhancement: every page works without
// it). It is served as the source text of `checkoutPageScript`, so this function must stay
// self-contained: no imports, no references to anything outside its body, no multi-line strings.
// It reads everything it needs from data-* attributes the server renders.
//
// What it adds: the form shown one step at a time with checks before moving on, the network
// guessed from the phone prefix (overridable), live fee and total for the chosen method, the
// review step, one submission per click, the wait screen's status polling with backoff and hold
// countdown, the auto-continue after success, and the postMessage protocol of embedded sessions.

export function checkoutPageScript(): void {
  const d = document;
  const body = d.body;
  const mode = body.dataset.mode || 'redirect';
  const embedOrigin = body.dataset.embedOrigin || '';

  /** SPEC.md section 6: messages go to the exact embed origin, never '*'. */
  function post(message: Record<string, string>): void {
    if (mode !== 'embedded' || !embedOrigin || window.parent === window) return;
    window.parent.postMessage(message, embedOrigin);
  }

  function all<T extends Element>(selector: string, root: ParentNode = d): T[] {
    return Array.prototype.slice.call(root.querySelectorAll(selector)) as T[];
  }

  function one<T extends Element>(selector: string, root: ParentNode = d): T | null {
    return root.querySelector(selector) as T | null;
  }

  function normalizePhone(value: string): string | null {
    if (value.length > 32) return null;
    const digits = value.replace(/\D/g, '');
    if (/^0\d{9}$/.test(digits)) return '256' + digits.slice(1);
    if (/^7\d{8}$/.test(digits)) return '256' + digits;
    if (/^256\d{9}$/.test(digits)) return digits;
    return null;
  }

  function networkOf(msisdn: string): string | null {
    const prefix = msisdn.slice(3, 5);
    if (['76', '77', '78', '79'].indexOf(prefix) >= 0) return 'momo';
    if (['70', '74', '75'].indexOf(prefix) >= 0) return 'airtel';
    return null;
  }

  const METHOD_NAMES: Record<string, string> = { momo: 'MTN Mobile Money', airtel: 'Airtel Money' };

  /** Forms that must be sent once: the button shows progress and a second submit is dropped. */
  function once(form: HTMLFormElement, isFinal: (submitter: HTMLElement | null) => boolean): void {
    let sent = false;
    form.addEventListener('submit', (event) => {
      const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
      if (event.defaultPrevented || !isFinal(submitter)) return;
      if (sent) {
        event.preventDefault();
        return;
      }
      sent = true;
      if (submitter) {
        submitter.setAttribute('aria-disabled', 'true');
        if (submitter.dataset.busy) submitter.textContent = submitter.dataset.busy;
        // Disabled after this turn, so the button's own name=value is still part of the submission.
        setTimeout(() => (submitter.disabled = true), 0);
      }
    });
  }

  post({ type: 'service:ready' });

  all<HTMLFormElement>('form[data-cancel]').forEach((form) =>
    form.addEventListener('submit', () => post({ type: 'service:cancel' })),
  );
  all<HTMLElement>('[data-close]').forEach((button) => {
    button.hidden = false;
    button.addEventListener('click', () => post({ type: 'service:close' }));
  });
  all<HTMLFormElement>('form[data-once]').forEach((form) => once(form, () => true));
  // Keys pressed inside the frame never reach the host page: Esc is passed on as a dismissal.
  d.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') post({ type: 'service:close' });
  });

  // ---------------------------------------------------------------------------------------
  // Field errors, in the same markup the server renders.

  function fieldBox(control: Element): HTMLElement | null {
    return control.closest('[data-field]') as HTMLElement | null;
  }

  function setError(control: HTMLInputElement | HTMLSelectElement, message: string | null): void {
    const box = fieldBox(control);
    if (!box) return;
    const errorId = 'err-' + box.dataset.field;
    const controls = all<HTMLInputElement>('input,select', box).filter((c) => c.type !== 'hidden');
    let note = d.getElementById(errorId);
    if (message) {
      if (!note) {
        note = d.createElement('p');
        note.className = 'error';
        note.id = errorId;
        let anchor: Element | null = controls[0] || null;
        while (anchor && anchor.parentElement !== box) anchor = anchor.parentElement;
        box.insertBefore(note, anchor);
      }
      note.textContent = 'Error: ' + message;
      box.classList.add('invalid');
    } else if (note) {
      note.remove();
      box.classList.remove('invalid');
    }
    controls.forEach((c) => {
      const ids = (c.getAttribute('aria-describedby') || '').split(' ').filter((t) => t && t !== errorId);
      if (message) ids.push(errorId);
      if (ids.length) c.setAttribute('aria-describedby', ids.join(' '));
      else c.removeAttribute('aria-describedby');
      if (message) c.setAttribute('aria-invalid', 'true');
      else c.removeAttribute('aria-invalid');
    });
  }

  // ---------------------------------------------------------------------------------------
  // The checkout form: one step at a time.

  const form = one<HTMLFormElement>('form[data-checkout]');
  if (form) {
    const currency = form.dataset.currency || 'UGX';
    const money = new Intl.NumberFormat('en-GB', { style: 'currency', currency, currencyDisplay: 'code' });
    const exponent = money.resolvedOptions().maximumFractionDigits || 0;
    const formatMoney = (minor: number) =>
      money.format(minor / Math.pow(10, exponent)).replace(/\s/g, '\u00a0');
    const steps = all<HTMLElement>('[data-step]', form);
    const selects = all<HTMLSelectElement>('select[data-qty]', form);
    const participants = one<HTMLElement>('[data-participants]', form);
    const methodRadios = all<HTMLInputElement>('input[name="payment_method"]:not([disabled])', form);
    const payPhone = one<HTMLInputElement>('[data-pay-phone]', form);
    const buyerPhone = one<HTMLInputElement>('[data-buyer-phone]', form);
    const donation = one<HTMLInputElement>('[data-donation]', form);
    const summary = one<HTMLElement>('.error-summary', form);
    const baseTitle = d.title;
    let methodChosenByBuyer = methodRadios.some((r) => r.checked);
    let current = 0;
    let builtFor = signature();

    all<HTMLElement>('[data-js]', form).forEach((e) => (e.hidden = false));
    all<HTMLElement>('[data-nojs]', form).forEach((e) => (e.hidden = true));

    function signature(): string {
      return selects.map((s) => s.dataset.tt + ':' + s.value).join(',');
    }

    function method(): string {
      const checked = methodRadios.filter((r) => r.checked)[0];
      return checked ? checked.value : 'momo';
    }

    function donationMinor(): number {
      const raw = donation ? donation.value.replace(/[\s,]/g, '') : '';
      return /^\d+$/.test(raw) ? Number(raw) : 0;
    }

    function totals() {
      let count = 0;
      let subtotal = 0;
      let fee = 0;
      const m = method();
      selects.forEach((s) => {
        const n = Number(s.value) || 0;
        count += n;
        subtotal += n * Number(s.dataset.price);
        fee += n * Number(s.dataset[m === 'airtel' ? 'feeAirtel' : 'feeMomo']);
      });
      const gift = donationMinor();
      return { count, subtotal, fee, donation: gift, total: subtotal + fee + gift };
    }

    function isActive(step: HTMLElement): boolean {
      if (step.dataset.step !== 'payment') return true;
      const t = totals();
      return t.total > 0 || t.count === 0;
    }

    function refreshPrices(): void {
      const m = method();
      all<HTMLElement>('[data-method-price]', form!).forEach((e) => {
        const text = m === 'airtel' ? e.dataset.airtel : e.dataset.momo;
        if (text) e.textContent = text;
      });
      const t = totals();
      all<HTMLElement>('[data-live-total]', form!).forEach((e) => {
        e.textContent = t.count
          ? t.count + (t.count === 1 ? ' ticket: ' : ' tickets: ') + formatMoney(t.total) + ' with fees'
          : '';
      });
    }

    function show(index: number, focus: boolean): void {
      current = index;
      const active = steps.filter(isActive);
      steps.forEach((step, i) => (step.hidden = i !== index));
      const step = steps[index]!;
      const position = active.indexOf(step) + 1;
      const count = one<HTMLElement>('[data-step-count]', step);
      if (count) count.textContent = 'Step ' + position + ' of ' + active.length;
      const heading = one<HTMLElement>('h2', step);
      d.title = (heading ? heading.getAttribute('data-title') || '' : '') + ' – ' + baseTitle;
      if (step.dataset.step === 'review') renderReview();
      if (step.dataset.step === 'payment' && payPhone && !payPhone.value && buyerPhone) {
        payPhone.value = buyerPhone.value;
        guessMethod();
      }
      if (focus && heading) {
        heading.setAttribute('tabindex', '-1');
        heading.focus();
        window.scrollTo(0, 0);
      }
    }

    function move(direction: 1 | -1): void {
      for (let i = current + direction; i >= 0 && i < steps.length; i += direction) {
        if (isActive(steps[i]!)) {
          show(i, true);
          return;
        }
      }
    }

    function required(control: HTMLInputElement | HTMLSelectElement, message: string): boolean {
      const ok = control.value.trim() !== '';
      setError(control, ok ? null : message);
      return ok;
    }

    function ageOn(dob: string, on: string): number {
      const b = dob.split('-').map(Number);
      const o = on.split('-').map(Number);
      return o[0]! - b[0]! - (o[1]! < b[1]! || (o[1] === b[1] && o[2]! < b[2]!) ? 1 : 0);
    }

    /** Checks of one step; the server repeats all of them and more. Returns the first bad control. */
    function check(step: HTMLElement): HTMLElement | null {
      const bad: HTMLElement[] = [];
      const name = step.dataset.step;
      if (name === 'tickets') {
        const n = totals().count;
        const max = Number(form!.dataset.maxTickets || 10);
        const message =
          n === 0 ? 'Choose at least one ticket' : n > max ? 'Choose at most ' + max + ' tickets' : null;
        if (selects[0]) setError(selects[0], message);
        if (message && selects[0]) bad.push(selects[0]);
      }
      if (name === 'participants') {
        all<HTMLFieldSetElement>('fieldset[data-item]', step).forEach((fs) => {
          all<HTMLInputElement | HTMLSelectElement>('[data-check]', fs).forEach((c) => {
            const label = c.dataset.label || 'This answer';
            if (c.dataset.check === 'required' && !required(c, label + ' is required')) bad.push(c);
            if (c.dataset.check === 'dob') {
              const value = c.value.trim();
              let message: string | null = null;
              if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) message = 'Enter the date of birth';
              else if (ageOn(value, c.dataset.raceDay || value) < Number(c.dataset.minAge || 0))
                message = 'The participant must be at least ' + c.dataset.minAge + ' on race day';
              setError(c, message);
              if (message) bad.push(c);
            }
          });
        });
      }
      if (name === 'buyer') {
        const fields = all<HTMLInputElement>('input', step);
        fields.forEach((c) => {
          let message: string | null = null;
          const value = c.value.trim();
          if (c.dataset.check === 'required' && !value)
            message = (c.dataset.label || 'This') + ' is required';
          if (c.type === 'email' && value && !/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value))
            message = 'Enter an e-mail address such as name@example.com';
          if (c.type === 'tel' && !normalizePhone(value))
            message = 'Enter a Ugandan mobile number such as 0772 123456';
          setError(c, message);
          if (message) bad.push(c);
        });
      }
      if (name === 'waiver') {
        const box = one<HTMLInputElement>('input[type=checkbox]', step);
        if (box) {
          setError(box, box.checked ? null : 'Accept the waiver to continue');
          if (!box.checked) bad.push(box);
        }
      }
      if (name === 'donation' && donation) {
        const raw = donation.value.replace(/[\s,]/g, '');
        const message = raw === '' || /^\d+$/.test(raw) ? null : 'Enter a whole number of UGX, such as 5000';
        setError(donation, message);
        if (message) bad.push(donation);
      }
      if (name === 'payment' && payPhone) {
        const chosen = methodRadios.filter((r) => r.checked)[0];
        if (methodRadios[0]) setError(methodRadios[0], chosen ? null : 'Choose how to pay');
        if (!chosen && methodRadios[0]) bad.push(methodRadios[0]);
        const msisdn = normalizePhone(payPhone.value);
        let message: string | null = msisdn ? null : 'Enter a Ugandan mobile number such as 0772 123456';
        const network = msisdn && networkOf(msisdn);
        if (chosen && network && network !== chosen.value)
          message =
            'This is an ' +
            METHOD_NAMES[network] +
            ' number: choose ' +
            METHOD_NAMES[network] +
            ' or enter another number';
        setError(payPhone, message);
        if (message) bad.push(payPhone);
      }
      return bad[0] || null;
    }

    function guessMethod(): void {
      if (methodChosenByBuyer || !payPhone) return;
      const msisdn = normalizePhone(payPhone.value);
      const network = msisdn && networkOf(msisdn);
      if (!network) return;
      methodRadios.forEach((r) => (r.checked = r.value === network));
      refreshPrices();
      const note = one<HTMLElement>('[data-guess]', form!);
      if (note)
        note.textContent =
          'We chose ' + METHOD_NAMES[network] + ' from the number; change it if it is wrong.';
    }

    function buildParticipants(): void {
      if (!participants || signature() === builtFor) return;
      const saved: Record<string, Record<string, string>> = {};
      all<HTMLElement>('fieldset[data-item]', participants).forEach((fs) => {
        const values: Record<string, string> = {};
        all<HTMLInputElement | HTMLSelectElement>('input,select', fs).forEach((c) => {
          if (c.type !== 'hidden') values[c.name.replace(/^items\[\d+\]\./, '')] = c.value;
        });
        saved[fs.dataset.key || ''] = values;
      });
      const templates: Record<string, string> = {};
      all<HTMLTemplateElement>('template[data-participant-template]', form!).forEach(
        (t) => (templates[t.dataset.participantTemplate || ''] = t.innerHTML),
      );
      let index = 0;
      let markup = '';
      selects.forEach((s) => {
        const tt = s.dataset.tt || '';
        for (let k = 0; k < (Number(s.value) || 0); k++, index++) {
          markup += (templates[tt] || '')
            .replace(/__I__/g, String(index))
            .replace(/__N__/g, String(index + 1))
            .replace(/__K__/g, tt + '-' + k);
        }
      });
      participants.innerHTML = markup;
      all<HTMLElement>('fieldset[data-item]', participants).forEach((fs) => {
        const values = saved[fs.dataset.key || ''];
        if (!values) return;
        all<HTMLInputElement | HTMLSelectElement>('input,select', fs).forEach((c) => {
          const value = values[c.name.replace(/^items\[\d+\]\./, '')];
          if (c.type !== 'hidden' && value !== undefined) c.value = value;
        });
      });
      builtFor = signature();
    }

    function cell(row: HTMLTableRowElement, text: string, header: boolean, numeric: boolean): void {
      const c = d.createElement(header ? 'th' : 'td');
      if (header) c.setAttribute('scope', 'row');
      if (numeric) c.className = 'num';
      c.textContent = text;
      row.appendChild(c);
    }

    function renderReview(): void {
      const box = one<HTMLElement>('[data-review]', form!);
      if (!box) return;
      const t = totals();
      const m = method();
      box.textContent = '';
      const table = d.createElement('table');
      table.className = 'summary';
      const caption = d.createElement('caption');
      caption.className = 'muted';
      caption.textContent = 'Your order';
      table.appendChild(caption);
      const line = (label: string, amount: number, cls?: string) => {
        const row = table.insertRow();
        if (cls) row.className = cls;
        cell(row, label, true, false);
        cell(row, formatMoney(amount), false, true);
      };
      selects.forEach((s) => {
        const n = Number(s.value) || 0;
        if (n) line(n + ' × ' + s.dataset.name, n * Number(s.dataset.price));
      });
      if (t.fee) line('Service fee (' + METHOD_NAMES[m] + ')', t.fee);
      if (t.donation) line('Donation', t.donation);
      line('Total', t.total, 'total');
      box.appendChild(table);
      const facts = d.createElement('dl');
      facts.className = 'facts';
      const fact = (term: string, text: string) => {
        const dt = d.createElement('dt');
        dt.textContent = term;
        const dd = d.createElement('dd');
        dd.textContent = text;
        facts.appendChild(dt);
        facts.appendChild(dd);
      };
      const names = all<HTMLElement>('fieldset[data-item]', form!).map((fs) => {
        const input = one<HTMLInputElement>('input[data-name]', fs);
        return (input ? input.value.trim() : '') + ' (' + (fs.dataset.label || '') + ')';
      });
      fact(names.length === 1 ? 'Participant' : 'Participants', names.join(', '));
      const buyer = all<HTMLInputElement>('[data-step="buyer"] input', form!).map((c) => c.value.trim());
      fact('Buyer', buyer.filter(Boolean).join(', '));
      if (t.total > 0 && payPhone) fact('Payment', METHOD_NAMES[m] + ', ' + payPhone.value.trim());
      box.appendChild(facts);
      const pay = one<HTMLButtonElement>('[data-pay]', form!);
      if (pay) {
        pay.textContent = t.total > 0 ? 'Pay ' + formatMoney(t.total) : 'Confirm registration';
        pay.dataset.busy = t.total > 0 ? 'Sending the payment prompt…' : 'Confirming…';
      }
    }

    form.addEventListener('submit', (event) => {
      const submitter = (event as SubmitEvent).submitter as HTMLElement | null;
      const step = steps[current]!;
      if (step.dataset.step === 'review' && submitter && submitter.hasAttribute('data-pay')) return;
      event.preventDefault();
      if (step.dataset.step !== 'review') next();
    });
    once(form, (submitter) => !!submitter && submitter.hasAttribute('data-pay'));

    function next(): void {
      const step = steps[current]!;
      const bad = check(step);
      if (bad) {
        bad.focus();
        return;
      }
      if (summary) summary.hidden = true;
      if (step.dataset.step === 'tickets') buildParticipants();
      move(1);
    }

    all<HTMLElement>('[data-back]', form).forEach((b) => b.addEventListener('click', () => move(-1)));
    selects.forEach((s) => s.addEventListener('change', refreshPrices));
    methodRadios.forEach((r) =>
      r.addEventListener('change', () => {
        methodChosenByBuyer = true;
        const note = one<HTMLElement>('[data-guess]', form!);
        if (note) note.textContent = '';
        refreshPrices();
      }),
    );
    if (payPhone) payPhone.addEventListener('input', guessMethod);
    if (donation) donation.addEventListener('input', refreshPrices);

    // Links of the server's error summary open the step that holds the field.
    all<HTMLAnchorElement>('.error-summary a', form).forEach((a) =>
      a.addEventListener('click', (event) => {
        const target = d.getElementById((a.getAttribute('href') || '').slice(1));
        const step = target && (target.closest('[data-step]') as HTMLElement | null);
        if (!target || !step) return;
        event.preventDefault();
        show(steps.indexOf(step), false);
        target.focus();
      }),
    );

    refreshPrices();
    let start = 0;
    if (form.dataset.stage === 'details')
      start = Math.max(0, steps.indexOf(one<HTMLElement>('[data-step="participants"]', form)!));
    const firstInvalid = one<HTMLElement>('[aria-invalid="true"]', form);
    const invalidStep = firstInvalid && (firstInvalid.closest('[data-step]') as HTMLElement | null);
    if (invalidStep) start = steps.indexOf(invalidStep);
    show(start, false);
    if (summary) summary.focus();
  }

  // ---------------------------------------------------------------------------------------
  // The wait screen: poll the order status with backoff; count the hold down.

  const wait = one<HTMLElement>('[data-wait]');
  if (wait) {
    const statusUrl = wait.dataset.statusUrl || '';
    const clock = one<HTMLElement>('[data-countdown]');
    let deadline = Date.now() + Number(wait.dataset.secondsLeft || 0) * 1000;
    let delay = 1000;
    let timer = 0;
    const tick = () => {
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      if (clock) clock.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
      if (left === 0 && wait.dataset.poll === '1') {
        clearTimeout(timer);
        poll();
      }
    };
    const poll = () => {
      fetch(statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store' })
        .then((res) => (res.ok ? res.json() : Promise.reject(new Error(String(res.status)))))
        .then((s: { order_status: string; attempt_status: string | null; seconds_left: number }) => {
          deadline = Date.now() + s.seconds_left * 1000;
          const settled =
            s.order_status !== 'pending' ||
            (s.attempt_status !== 'pending' && s.attempt_status !== 'submitting');
          if (settled) {
            location.reload();
            return;
          }
          delay = Math.min(delay * 1.5, 8000);
          timer = window.setTimeout(poll, delay);
        })
        .catch(() => {
          delay = Math.min(delay * 2, 15000);
          timer = window.setTimeout(poll, delay);
        });
    };
    if (clock) window.setInterval(tick, 1000);
    if (wait.dataset.poll === '1') timer = window.setTimeout(poll, delay);
    // The retry form guesses the network from the number, as the checkout form does.
    const phone = one<HTMLInputElement>('[data-pay-phone]');
    const radios = all<HTMLInputElement>('input[name="payment_method"]:not([disabled])');
    let chosen = false;
    radios.forEach((r) => r.addEventListener('change', () => (chosen = true)));
    if (phone)
      phone.addEventListener('input', () => {
        const msisdn = normalizePhone(phone.value);
        const network = msisdn && networkOf(msisdn);
        if (!chosen && network) radios.forEach((r) => (r.checked = r.value === network));
      });
  }

  // ---------------------------------------------------------------------------------------
  // Confirmation: tell the embedding page, or continue to the partner after a visible countdown.

  const done = one<HTMLElement>('[data-success]');
  if (done) {
    post({
      type: 'service:success',
      session_id: done.dataset.sessionId || '',
      order_id: done.dataset.orderId || '',
      order_code: done.dataset.orderCode || '',
    });
    const target = done.dataset.continueUrl;
    const counter = one<HTMLElement>('[data-continue-count]');
    const stay = one<HTMLButtonElement>('[data-stay]');
    if (mode === 'redirect' && target && counter) {
      let left = Number(done.dataset.continueSeconds || 5);
      const box = counter.parentElement as HTMLElement;
      box.hidden = false;
      if (stay) stay.hidden = false;
      const interval = window.setInterval(() => {
        left -= 1;
        counter.textContent = String(Math.max(0, left));
        if (left <= 0) {
          clearInterval(interval);
          location.assign(target);
        }
      }, 1000);
      if (stay)
        stay.addEventListener('click', () => {
          clearInterval(interval);
          box.hidden = true;
          stay.hidden = true;
        });
    }
  }
}
