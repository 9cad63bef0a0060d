// The simulated hosted payment page's HTML: the card form, the 3-D Secure OTP form and the end
// page. Plain forms with no script, readable at 360 px, every field labelled; the test cards are
// listed on the page, since a card number is only ever typed here, never into our service.

/** A test card and what paying with it does. */
export interface TestCard {
  number: string;
  summary: string;
  outcome: 'success' | 'otp' | 'insufficient_funds' | 'issuer_declined' | 'never_completes';
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', summary: 'succeeds', outcome: 'success' },
  { number: '5531886652142950', summary: 'asks for a 3-D Secure OTP (12345), then succeeds', outcome: 'otp' },
  { number: '4000000000009995', summary: 'declined: insufficient funds', outcome: 'insufficient_funds' },
  { number: '4000000000000002', summary: 'declined by the issuer', outcome: 'issuer_declined' },
  {
    number: '4000000000000119',
    summary: 'never completes (pending, then timed out)',
    outcome: 'never_completes',
  },
];

/** The OTP the 3-D Secure step takes; any other declines the payment. */
export const TEST_OTP = '12345';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - Flutterwave (simulated)</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:16px;max-width:28rem;color:#1a1a1a}
label{display:block;font-weight:600;margin-top:12px}
input{box-sizing:border-box;width:100%;font-size:1rem;padding:10px;border:1px solid #555;border-radius:4px}
button{margin-top:16px;width:100%;padding:12px;font-size:1rem;background:#0b5394;color:#fff;border:0;border-radius:4px}
.error{color:#a00000;font-weight:600}
.row{display:flex;gap:12px}.row>div{flex:1}
code{font-size:.95em}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface CardPageView {
  title: string;
  /** e.g. "UGX 15000" */
  amount: string;
  action: string;
  cancelUrl: string;
  error?: string;
  /** what was typed, kept on an error except the CVV */
  typed?: { number: string; expiry: string };
}

export function cardPage(view: CardPageView): string {
  const error = view.error
    ? `<p class="error" id="form-error" role="alert">${escapeHtml(view.error)}</p>`
    : '';
  const described = view.error ? ' aria-describedby="form-error"' : '';
  const cards = TEST_CARDS.map(
    (card) => `<li><code>${card.number}</code>: ${escapeHtml(card.summary)}</li>`,
  ).join('\n');
  return layout(
    'Pay by card',
    `<h1>${escapeHtml(view.title)}</h1>
<p>Pay <strong>${escapeHtml(view.amount)}</strong> by card. This is a simulated Flutterwave page: no real card is charged.</p>
${error}
<form method="post" action="${escapeHtml(view.action)}"${described}>
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required value="${escapeHtml(view.typed?.number ?? '')}">
<div class="row">
<div><label for="expiry">Expiry (MM/YY)</label>
<input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required value="${escapeHtml(view.typed?.expiry ?? '')}"></div>
<div><label for="cvv">CVV</label>
<input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required></div>
</div>
<button type="submit">Pay ${escapeHtml(view.amount)}</button>
</form>
<p><a href="${escapeHtml(view.cancelUrl)}">Cancel and go back</a></p>
<h2>Test cards</h2>
<p>Any future expiry and any 3-digit CVV.</p>
<ul>
${cards}
</ul>`,
  );
}

export function otpPage(view: { action: string; cancelUrl: string }): string {
  return layout(
    'Confirm with your bank',
    `<h1>Confirm with your bank</h1>
<p>Your bank sent a one-time password (OTP). In this simulation it is <code>${TEST_OTP}</code>; any other declines the payment.</p>
<form method="post" action="${escapeHtml(view.action)}">
<label for="otp">One-time password</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Confirm</button>
</form>
<p><a href="${escapeHtml(view.cancelUrl)}">Cancel and go back</a></p>`,
  );
}

export function endPage(view: { message: string; continueUrl: string }): string {
  return layout(
    'Payment',
    `<h1>Payment</h1>
<p>${escapeHtml(view.message)}</p>
<p><a href="${escapeHtml(view.continueUrl)}">Continue</a></p>`,
  );
}
