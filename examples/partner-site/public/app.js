/* global ServiceCheckout, document, fetch, setTimeout */
// The partner page's own script: opens the embedded checkout both ways and logs every callback.
// onSuccess is only a signal to the page: the order counts as paid when our server says so,
// after it has read the session from the service (GET /api/fulfilment).
'use strict';
(function () {
  const config = document.body.dataset;
  const log = document.getElementById('log');
  const fulfilment = document.getElementById('fulfilment');
  if (!log || !fulfilment) return; // the /thanks page shares this script and has nothing to wire

  function note(text) {
    const item = document.createElement('li');
    item.textContent = text;
    log.appendChild(item);
  }

  function prefill() {
    const fields = { 'buyer-name': 'buyer_name', 'buyer-email': 'buyer_email', 'buyer-phone': 'buyer_phone' };
    const out = {};
    for (const id of Object.keys(fields)) {
      const value = document.getElementById(id).value.trim();
      if (value) out[fields[id]] = value;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  async function confirmOnServer(sessionId) {
    fulfilment.textContent = 'Checking the payment with our server\u2026';
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await fetch('/api/fulfilment?session_id=' + encodeURIComponent(sessionId));
      const result = await response.json();
      if (result.fulfilled) {
        fulfilment.textContent = 'Confirmed by our server: order ' + result.order.code + ' is paid.';
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    fulfilment.textContent = 'Our server has not seen the payment yet; we will e-mail you when it does.';
  }

  function callbacks() {
    return {
      onSuccess(result) {
        note('success ' + result.order_code);
        confirmOnServer(result.session_id);
      },
      onCancel() {
        note('cancel');
      },
      onClose() {
        note('close');
      },
      onError(error) {
        note('error ' + error.error_code + ' ' + error.status);
      },
    };
  }

  document.getElementById('buy-with-key').addEventListener('click', function () {
    ServiceCheckout.open(
      Object.assign(
        {
          publishableKey: config.publishableKey,
          eventId: config.eventId,
          clientReferenceId: 'cart_' + Date.now().toString(36),
          prefill: prefill(),
        },
        callbacks(),
      ),
    );
  });

  document.getElementById('buy-with-session').addEventListener('click', async function () {
    const response = await fetch('/api/embedded-sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prefill: prefill() }),
    });
    const body = await response.json();
    if (!response.ok) {
      note('error ' + body.error + ' ' + response.status);
      return;
    }
    ServiceCheckout.open(Object.assign({ sessionId: body.session_id }, callbacks()));
  });
})();
