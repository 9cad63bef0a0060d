// The check-in page's script (bundled by src/app/check-in-assets.ts): finds runners by name, bib,
// ticket code (on the device, offline too) or phone and order code (the server, when online), reads
// tickets' QR codes with the camera, and checks runners in with one tap. Check-ins go into a queue
// kept on the device and are sent when there is a connection; the server answers each once
// (docs/decisions/check-in-offline.md).
import { openCamera, closeCamera } from './camera.ts';
import {
  load,
  newClientId,
  save,
  type CheckInState,
  type Kept,
  type QueueItem,
  type Runner,
} from './store.ts';

const SYNC_PART = 200;
const POLL_MS = 5000;
const UNDO_MS = 60_000;
const SEARCH_LIMIT = 20;

const root = document.getElementById('checkin') as HTMLElement | null;
if (root) start(root);

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function start(root: HTMLElement): void {
  const eventId = root.dataset.event!;
  const csrf = root.dataset.csrf!;
  const volunteer = root.dataset.volunteer!;
  const timeZone = root.dataset.timezone!;
  const statusLine = byId<HTMLElement>('checkin-status');
  const alertBox = byId<HTMLElement>('checkin-alert');
  const searchForm = byId<HTMLFormElement>('checkin-search');
  const input = byId<HTMLInputElement>('checkin-q');
  const results = byId<HTMLUListElement>('checkin-results');
  const counts = byId<HTMLElement>('checkin-counts');
  const countBody = byId<HTMLElement>('checkin-count-body');
  const scanButton = byId<HTMLButtonElement>('checkin-scan');

  const kept: Kept & { mine?: Record<string, string> } = load(eventId);
  /** the check-ins this device made: client id -> registration id (for undo) */
  const mine: Record<string, string> = (kept.mine ??= {});
  let online = navigator.onLine;
  let syncing = false;
  /** the runners on show: a search's, or the one a scan found */
  let shown: Runner[] = [];
  let serverIds: string[] = [];
  let searchTimer = 0;

  const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone });
  const timeOf = (iso: string) => clock.format(new Date(iso));
  // two taps a few seconds apart: a conflict is told to the second
  const seconds = new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone,
  });
  const exactTimeOf = (iso: string) => seconds.format(new Date(iso));
  const persist = () => save(eventId, kept);
  const runners = () => kept.roster?.runners ?? [];
  const runnerById = (id: string) => runners().find((r) => r.id === id);
  const typeName = (id: string) => kept.roster?.ticket_types.find((t) => t.id === id)?.name ?? '';

  function say(message: string, kind: 'bad' | 'good'): void {
    alertBox.hidden = false;
    alertBox.className = `checkin-alert ${kind}`;
    alertBox.textContent = message;
  }

  function renderStatus(): void {
    const waiting = kept.queue.length;
    const pending =
      waiting === 0 ? '' : ` ${waiting} ${waiting === 1 ? 'check-in' : 'check-ins'} waiting to send.`;
    if (!kept.roster) {
      statusLine.textContent = online ? 'Loading the runners…' : 'Offline: connect once to load the runners.';
    } else if (!online) {
      statusLine.textContent = `Offline: check-ins are kept on this phone.${pending}`;
    } else {
      statusLine.textContent =
        waiting === 0 ? 'Online: every check-in is sent.' : `Online: sending.${pending}`;
    }
    statusLine.className = `checkin-status ${online ? 'online' : 'offline'}`;
    statusLine.dataset.pending = String(waiting);
  }

  function card(runner: Runner): HTMLLIElement {
    const li = document.createElement('li');
    li.className = 'runner-card';
    li.dataset.registration = runner.id;
    const state = kept.states[runner.id];
    const h = document.createElement('h2');
    h.textContent = runner.name;
    li.append(h);
    const facts = document.createElement('dl');
    const fact = (label: string, value: string | null) => {
      if (value === null || value === '') return;
      const dt = document.createElement('dt');
      dt.textContent = label;
      const dd = document.createElement('dd');
      dd.textContent = value;
      facts.append(dt, dd);
    };
    fact('Ticket', typeName(runner.ticket_type_id));
    fact('Bib', runner.bib === null ? 'none yet' : String(runner.bib));
    if (kept.roster?.shirt) fact('T-shirt', runner.shirt ?? 'not given');
    fact('Ticket code', runner.code);
    li.append(facts);
    if (runner.emergency_name || runner.emergency_phone) {
      // on a line of its own, the phone a link to call: a volunteer may need it in a hurry
      const contact = document.createElement('p');
      contact.className = 'runner-emergency';
      const label = document.createElement('strong');
      label.textContent = 'Emergency contact: ';
      contact.append(label, runner.emergency_name ?? '');
      if (runner.emergency_phone) {
        const call = document.createElement('a');
        call.href = `tel:${runner.emergency_phone.replace(/[^+\d]/g, '')}`;
        call.textContent = runner.emergency_phone;
        contact.append(runner.emergency_name ? ', ' : '', call);
      }
      li.append(contact);
    }
    const line = document.createElement('p');
    line.className = 'runner-state';
    if (runner.ticket_void) {
      line.textContent = 'Ticket void: ask for the new ticket.';
      line.classList.add('bad');
      li.append(line);
      return li;
    }
    if (state) {
      line.textContent = `Checked in at ${timeOf(state.at)} by ${state.by}`;
      line.classList.add('good');
      li.append(line);
      if (mine[state.client_id] && Date.now() - Date.parse(state.at) < UNDO_MS) {
        const undo = document.createElement('button');
        undo.type = 'button';
        undo.className = 'secondary';
        undo.textContent = 'Undo check-in';
        undo.setAttribute('aria-label', `Undo check-in of ${runner.name}`);
        undo.addEventListener('click', () => undoCheckIn(runner));
        li.append(undo);
      }
    } else {
      line.textContent = 'Not checked in';
      li.append(line);
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Check in';
    button.className = state ? 'secondary' : 'primary';
    button.setAttribute('aria-label', `Check in ${runner.name}`);
    button.addEventListener('click', () => checkIn(runner));
    li.append(button);
    return li;
  }

  /** What the cards on show depend on: they are drawn again only when it changes, never under a finger. */
  let drawn = '';
  function renderResults(): void {
    const now = Date.now();
    const signature = JSON.stringify(
      shown.map((r) => {
        const state = kept.states[r.id];
        const undo = state && mine[state.client_id] && now - Date.parse(state.at) < UNDO_MS;
        return [r.id, state?.client_id, state?.at, state?.by, undo];
      }),
    );
    if (signature === drawn) return;
    drawn = signature;
    results.replaceChildren(...shown.map(card));
  }

  function renderCounts(): void {
    const roster = kept.roster;
    if (!roster) return;
    counts.hidden = false;
    const table = document.createElement('table');
    table.innerHTML =
      '<thead><tr><th scope="col">Ticket type</th><th scope="col">Checked in</th></tr></thead>';
    const body = document.createElement('tbody');
    let all = 0;
    let done = 0;
    for (const type of roster.ticket_types) {
      const field = roster.runners.filter((r) => r.ticket_type_id === type.id && !r.ticket_void);
      const inCount = field.filter((r) => kept.states[r.id]).length;
      all += field.length;
      done += inCount;
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = type.name;
      const td = document.createElement('td');
      td.textContent = `${inCount} / ${field.length}`;
      tr.append(th, td);
      body.append(tr);
    }
    table.append(body);
    const total = document.createElement('p');
    total.className = 'checkin-total';
    total.textContent = `${done} of ${all} runners checked in`;
    const parts: Node[] = [total, table];
    if (roster.shirt) {
      const sizes = new Map<string, number>();
      for (const r of roster.runners) {
        if (kept.states[r.id] && r.shirt) sizes.set(r.shirt, (sizes.get(r.shirt) ?? 0) + 1);
      }
      const h = document.createElement('h2');
      h.textContent = 'T-shirts handed out';
      const list = document.createElement('table');
      list.innerHTML = '<thead><tr><th scope="col">Size</th><th scope="col">Handed out</th></tr></thead>';
      const tbody = document.createElement('tbody');
      const order = [
        ...roster.shirt.options,
        ...[...sizes.keys()].filter((s) => !roster.shirt!.options.includes(s)),
      ];
      for (const size of order) {
        const tr = document.createElement('tr');
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = size;
        const td = document.createElement('td');
        td.textContent = String(sizes.get(size) ?? 0);
        tr.append(th, td);
        tbody.append(tr);
      }
      list.append(tbody);
      parts.push(h, list);
    }
    countBody.replaceChildren(...parts);
  }

  function render(): void {
    renderStatus();
    renderResults();
    renderCounts();
  }

  function checkIn(runner: Runner): void {
    const state = kept.states[runner.id];
    if (state) {
      say(`Already checked in at ${timeOf(state.at)} by ${state.by}: ${runner.name}`, 'bad');
      return;
    }
    if (runner.ticket_void) {
      say(`${runner.name}: this ticket is void. Ask for the new ticket.`, 'bad');
      return;
    }
    const item: QueueItem = {
      kind: 'check_in',
      id: newClientId(),
      registration_id: runner.id,
      at: new Date().toISOString(),
    };
    kept.states[runner.id] = { registration_id: runner.id, client_id: item.id, at: item.at, by: volunteer };
    mine[item.id] = runner.id;
    kept.queue.push(item);
    persist();
    say(`${runner.name} is checked in.`, 'good');
    render();
    void sync();
  }

  function undoCheckIn(runner: Runner): void {
    const state = kept.states[runner.id];
    if (!state) return;
    kept.queue.push({ kind: 'undo', id: state.client_id, at: new Date().toISOString() });
    delete kept.states[runner.id];
    persist();
    say(`Check-in of ${runner.name} undone.`, 'good');
    render();
    void sync();
  }

  /** Unsent check-ins of a registration: what the server's view of it must not overwrite yet. */
  const hasPending = (registrationId: string) =>
    kept.queue.some((q) =>
      q.kind === 'check_in' ? q.registration_id === registrationId : mine[q.id] === registrationId,
    );

  function setOnline(value: boolean): void {
    if (online === value) return;
    online = value;
    renderStatus();
  }

  async function send(path: string, init?: RequestInit): Promise<Response | null> {
    // The phone says it has no network: nothing is tried until its 'online' event, which syncs.
    if (!navigator.onLine) {
      setOnline(false);
      return null;
    }
    try {
      const response = await fetch(path, { credentials: 'same-origin', ...init });
      setOnline(true);
      return response;
    } catch {
      setOnline(false);
      return null;
    }
  }

  async function sync(): Promise<void> {
    if (syncing) return;
    syncing = true;
    try {
      while (kept.queue.length > 0) {
        const part = kept.queue.slice(0, SYNC_PART);
        const body = {
          check_ins: part.flatMap((q) =>
            q.kind === 'check_in' ? [{ id: q.id, registration_id: q.registration_id, at: q.at }] : [],
          ),
          undos: part.flatMap((q) => (q.kind === 'undo' ? [{ id: q.id, at: q.at }] : [])),
        };
        const response = await send(`/check-in/${eventId}/sync`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify(body),
        });
        if (!response) return;
        if (response.status === 403 || response.status === 303 || response.redirected) {
          say('You are signed out: sign in again to send the check-ins kept on this phone.', 'bad');
          return;
        }
        if (!response.ok && response.status !== 400) return; // the server's trouble: try again later
        kept.queue = kept.queue.filter((q) => !part.includes(q));
        if (response.status === 400) {
          say('Some check-ins could not be read by the server and were dropped.', 'bad');
        } else {
          applyResults((await response.json()) as SyncAnswer);
        }
        persist();
        render();
      }
    } finally {
      syncing = false;
      renderStatus();
    }
  }

  interface SyncAnswer {
    check_ins: {
      id: string;
      registration_id: string;
      result: string;
      at?: string;
      by?: string;
      message?: string;
      winner?: CheckInState | null;
    }[];
    undos: { id: string; result: string; message?: string; registration_id?: string }[];
  }

  function applyResults(answer: SyncAnswer): void {
    for (const r of answer.check_ins) {
      const runner = runnerById(r.registration_id);
      const name = runner?.name ?? 'A runner';
      const local = kept.states[r.registration_id];
      if (r.result === 'checked_in') {
        if (!hasPending(r.registration_id)) {
          kept.states[r.registration_id] = {
            registration_id: r.registration_id,
            client_id: r.id,
            at: r.at!,
            by: r.by!,
          };
        }
      } else if (r.result === 'conflict') {
        const winner = r.winner;
        if (winner) kept.states[r.registration_id] = { ...winner, registration_id: r.registration_id };
        if (mine[r.id]) {
          say(
            winner
              ? `${name} was already checked in at ${exactTimeOf(winner.at)} by ${winner.by}: your check-in at ${exactTimeOf(r.at!)} came second.`
              : `${name}: your check-in at ${timeOf(r.at!)} came second.`,
            'bad',
          );
        }
      } else if (r.result === 'refused' || r.result === 'undone') {
        if (local?.client_id === r.id) delete kept.states[r.registration_id];
        if (r.result === 'refused') say(`${name}: ${r.message ?? 'refused'}`, 'bad');
      }
    }
    for (const u of answer.undos) {
      if (u.result === 'refused') say(`Undo refused: ${u.message ?? ''}`, 'bad');
    }
  }

  async function poll(): Promise<void> {
    if (!kept.roster || !kept.since) return;
    const response = await send(`/check-in/${eventId}/changes?since=${encodeURIComponent(kept.since)}`);
    if (!response?.ok) return;
    const answer = (await response.json()) as {
      now: string;
      changes: { registration_id: string; live: CheckInState | null }[];
    };
    for (const change of answer.changes) {
      if (hasPending(change.registration_id)) continue;
      const before = kept.states[change.registration_id];
      if (change.live) kept.states[change.registration_id] = change.live;
      else delete kept.states[change.registration_id];
      // this device's check-in, sent and taken, then displaced by an earlier one synced later
      if (before && mine[before.client_id] && change.live && change.live.client_id !== before.client_id) {
        const name = runnerById(change.registration_id)?.name ?? 'A runner';
        say(
          `${name} was already checked in at ${exactTimeOf(change.live.at)} by ${change.live.by}: your check-in at ${exactTimeOf(before.at)} came second.`,
          'bad',
        );
      }
    }
    kept.since = answer.now;
    persist();
    render();
  }

  async function loadRoster(): Promise<void> {
    const response = await send(`/check-in/${eventId}/roster`);
    if (response?.ok) {
      const roster = (await response.json()) as Kept['roster'] & object;
      kept.roster = roster;
      kept.since = roster.now;
      // the server's check-ins, then this device's own not yet sent on top
      const states: Record<string, CheckInState> = {};
      for (const s of roster.check_ins) states[s.registration_id] = s;
      for (const q of kept.queue) {
        if (q.kind === 'check_in')
          states[q.registration_id] = {
            registration_id: q.registration_id,
            client_id: q.id,
            at: q.at,
            by: volunteer,
          };
        else if (mine[q.id]) delete states[mine[q.id]!];
      }
      kept.states = states;
      persist();
    }
  }

  const fold = (text: string) =>
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();

  function localMatches(q: string): Runner[] {
    const text = q.trim();
    if (text === '') return [];
    const upper = text.toUpperCase().replace(/\s/g, '');
    const words = fold(text).split(/\s+/).filter(Boolean);
    const digits = /^\d+$/.test(text) ? Number(text) : null;
    return runners()
      .filter(
        (r) =>
          (digits !== null && r.bib === digits) ||
          (upper.length >= 3 && r.code?.startsWith(upper)) ||
          words.every((w) => fold(r.name).includes(w)),
      )
      .slice(0, SEARCH_LIMIT);
  }

  function showSearch(): void {
    const q = input.value;
    const found = localMatches(q);
    const ids = new Set(found.map((r) => r.id));
    for (const id of serverIds) {
      const r = runnerById(id);
      if (r && !ids.has(id) && found.length < SEARCH_LIMIT) found.push(r);
    }
    shown = found;
    renderResults();
  }

  input.addEventListener('input', () => {
    serverIds = [];
    showSearch();
    window.clearTimeout(searchTimer);
    const q = input.value.trim();
    // names, bibs and ticket codes are all on the phone; a phone number or an order code (six or
    // more characters with a digit) is only on the server
    if (online && q.replace(/\s/g, '').length >= 6 && /\d/.test(q)) {
      searchTimer = window.setTimeout(async () => {
        const response = await send(`/check-in/${eventId}/search?q=${encodeURIComponent(q)}`);
        if (!response?.ok || input.value.trim() !== q) return;
        serverIds = ((await response.json()) as { registration_ids: string[] }).registration_ids;
        showSearch();
      }, 250);
    }
  });
  searchForm.addEventListener('submit', (event) => event.preventDefault());

  async function scanned(value: string): Promise<void> {
    const token = /\/tickets\/([A-Za-z0-9_-]{32})(?:$|[?#])/.exec(value)?.[1];
    let runner: Runner | undefined;
    if (token) {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
      const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0'))
        .join('')
        .slice(0, 32);
      runner = runners().find((r) => r.scan === hex);
    } else {
      const code = value.trim().toUpperCase();
      runner = runners().find((r) => r.code === code);
    }
    if (!runner) {
      say('This QR code is not a ticket of this event.', 'bad');
      return;
    }
    shown = [runner];
    input.value = '';
    renderResults();
    const state = kept.states[runner.id];
    if (state) say(`Already checked in at ${timeOf(state.at)} by ${state.by}: ${runner.name}`, 'bad');
    else say(`Found ${runner.name}: tap Check in.`, 'good');
  }

  scanButton.addEventListener('click', () => {
    void openCamera({
      wasm: root.dataset.wasm!,
      scanner: root.dataset.scanner!,
      onCode: (v) => void scanned(v),
    });
  });
  byId<HTMLButtonElement>('checkin-camera-close').addEventListener('click', closeCamera);

  window.addEventListener('online', () => {
    setOnline(true);
    void sync().then(poll);
  });
  window.addEventListener('offline', () => setOnline(false));

  if ('serviceWorker' in navigator) {
    navigator.serviceWorker
      .register('/check-in/sw.js', { scope: '/check-in/' })
      .then(async () => {
        // this page and the files it loaded, for a reload offline (the worker keeps them afterwards)
        const files = [
          location.pathname,
          ...Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]'), (l) => l.href),
          ...Array.from(document.querySelectorAll<HTMLScriptElement>('script[src]'), (s) => s.src),
        ];
        const cache = await caches.open('check-in-v1');
        await cache.addAll(files);
      })
      .catch(() => undefined);
  }

  void (async () => {
    render();
    await loadRoster();
    searchForm.hidden = false;
    scanButton.hidden = false;
    render();
    await sync();
    window.setInterval(() => {
      void sync().then(poll);
    }, POLL_MS);
    // the undo buttons go once their minute is up
    window.setInterval(renderResults, 5000);
  })();
}
