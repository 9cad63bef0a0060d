// The 503 page (views/unavailable-page.ts) inside checkout.js's frame. It could not read the
// session; its own inline script found the framing page's origin (the browser's word) and said
// service:ready. Here the page becomes an embedded page of that origin, so that Esc closes the
// modal as on any checkout page.

/** Marks the body as embedded for the origin the page found; run before the messenger reads it. */
export function adoptFramingOrigin(body: HTMLElement): void {
  const origin = document.documentElement.dataset.embedOrigin;
  if (!origin || !document.querySelector('[data-unavailable]')) return;
  body.dataset.mode = 'embedded';
  body.dataset.embedOrigin = origin;
}
