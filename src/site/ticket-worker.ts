// The ticket page's two small scripts: the service worker that keeps each ticket page it has shown
// (network first, the kept copy when offline: docs/decisions/ticket-page-offline.md), served as
// /tickets/sw.js so that its scope is /tickets/, and the page's inline script that registers it
// and shows the Print button. Plain JavaScript text: nothing to bundle.

/** The worker. It answers only ticket pages; everything else goes to the network untouched. */
export const TICKET_WORKER_JS = `'use strict';
const CACHE = 'tickets-v1';
const TICKET_PATH = /^\\/tickets\\/[A-Za-z0-9_-]{32}$/;
function isTicketPage(url) {
  return url.origin === self.location.origin && TICKET_PATH.test(url.pathname);
}
function keyOf(url) {
  return url.origin + url.pathname + url.search;
}
async function keep(cache, url, response) {
  if (response.ok) await cache.put(keyOf(url), response);
  // A ticket that no longer opens (void, transferred, or never was) is forgotten.
  else if (response.status === 404 || response.status === 410) await cache.delete(keyOf(url));
}
self.addEventListener('install', () => self.skipWaiting());
// The page that registered the worker was loaded before it: keep that one too.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      await self.clients.claim();
      const cache = await caches.open(CACHE);
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const client of windows) {
        const url = new URL(client.url);
        if (!isTicketPage(url)) continue;
        try {
          await keep(cache, url, await fetch(keyOf(url), { credentials: 'omit' }));
        } catch {
          // Offline already: the next visit online keeps it.
        }
      }
    })(),
  );
});
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || !isTicketPage(url)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      let response;
      try {
        response = await fetch(event.request);
      } catch (error) {
        const kept = await cache.match(keyOf(url));
        if (kept) return kept;
        throw error;
      }
      if (response.status >= 500) {
        const kept = await cache.match(keyOf(url));
        if (kept) return kept;
      }
      await keep(cache, url, response.clone());
      return response;
    })(),
  );
});
`;

/** The page's script: registers the worker, and offers Print where scripts run. */
export const TICKET_PAGE_SCRIPT =
  "if('serviceWorker' in navigator){navigator.serviceWorker.register('/tickets/sw.js',{scope:'/tickets/'}).catch(function(){});}" +
  "document.querySelectorAll('[data-print]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){window.print();});});";
