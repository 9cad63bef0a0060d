// The check-in pages: the list of events to check runners in for, and one event's check-in page,
// a shell the page's script (web/checkin/) fills from the roster it keeps on the device. Without
// the script there is nothing to do offline, so the page says so.
import type { EventRow } from '../../events/index.ts';
import { html } from '../../platform/index.ts';
import { CHECKIN_SCANNER_PATH, CHECKIN_SCRIPT_PATH, CHECKIN_WASM_PATH } from '../check-in-assets.ts';
import { page, type Viewer } from './layout.ts';

/**
 * The app's policy, plus what the page needs: fetch to its own host (roster, sync), its worker,
 * the camera's stream in a video element, and WebAssembly for the QR decoder.
 */
export const CHECK_IN_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "worker-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function dateOf(event: EventRow): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: event.timezone }).format(
    event.startsAt,
  );
}

export function renderCheckInEvents(view: { viewer: Viewer; events: EventRow[] }): string {
  const main = html`<h1>Check-in</h1>
    ${
      view.events.length === 0
        ? html`<p>No event to check runners in for.</p>`
        : html`<p>Choose the event you are checking runners in for.</p>
            <ul class="entries">
              ${view.events.map(
                (e) =>
                  html`<li>
                    <span
                      ><a href="/check-in/${e.id}"><strong>${e.name}</strong></a>
                      <span class="muted">${dateOf(e)}</span></span
                    >
                  </li>`,
              )}
            </ul>`
    }`;
  return page({ title: 'Check-in', main, viewer: view.viewer, section: 'check-in' });
}

export function renderCheckIn(view: { viewer: Viewer; event: EventRow; volunteer: string }): string {
  const { event } = view;
  const main = html`<div
    class="checkin"
    id="checkin"
    data-event="${event.id}"
    data-csrf="${view.viewer.current.session.csrfToken}"
    data-volunteer="${view.volunteer}"
    data-timezone="${event.timezone}"
    data-scanner="${CHECKIN_SCANNER_PATH}"
    data-wasm="${CHECKIN_WASM_PATH}"
  >
    <h1>Check-in <span class="muted">${event.name}</span></h1>
    <p id="checkin-status" class="checkin-status" role="status">Loading the runners…</p>
    <noscript><p class="notice bad">Check-in needs JavaScript: turn it on and reload.</p></noscript>
    <div id="checkin-alert" class="checkin-alert" role="alert" hidden></div>
    <form id="checkin-search" class="checkin-search" role="search" hidden>
      <label for="checkin-q">Name, bib, phone or ticket code</label>
      <input
        id="checkin-q"
        name="q"
        type="search"
        autocomplete="off"
        autocapitalize="off"
        spellcheck="false"
      />
    </form>
    <p><button type="button" id="checkin-scan" hidden>Scan a ticket</button></p>
    <div id="checkin-camera" class="checkin-camera" hidden>
      <video
        id="checkin-video"
        muted
        playsinline
        aria-label="Camera view for scanning a ticket's QR code"
      ></video>
      <p id="checkin-camera-note" class="muted" role="status"></p>
      <button type="button" id="checkin-camera-close">Close camera</button>
    </div>
    <ul id="checkin-results" class="checkin-results" aria-label="Runners found"></ul>
    <section id="checkin-counts" class="checkin-counts" aria-labelledby="checkin-counts-title" hidden>
      <h2 id="checkin-counts-title">Checked in</h2>
      <div id="checkin-count-body"></div>
    </section>
  </div>`;
  return page({
    title: `Check-in: ${event.name}`,
    main,
    viewer: view.viewer,
    section: 'check-in',
    pageScript: CHECKIN_SCRIPT_PATH,
  });
}

/** A device's queue is sent in parts of at most 500 items of about 120 bytes: 256 KiB leaves room. */
export const SYNC_BODY_LIMIT_BYTES = 256 * 1024;
