// Forms sent with fetch instead of a navigation, so that a request the service cannot answer just
// now (503) or one that never gets an answer (no network) leaves the buyer on their page with all
// they typed, told in place what happened and offered "Try again". Any other answer is shown as
// the navigation would have shown it (show-page.ts). The cancel forms stay with the browser: their
// answer leads to the partner's site, which fetch could not show.
import { all, append, one } from './dom.ts';
import { t } from './messages.ts';
import { chosenMethodOf, onPage } from './page-methods.ts';
import { showPage } from './show-page.ts';
import { allowAgain } from './submit-once.ts';
import { replaced } from './timers.ts';

/** The words of the server's 503 page (views/unavailable-page.ts): heading, sentences, reference. */
function serverWords(markup: string): { said: string[]; reference: string } | null {
  // Its <main> only: the page's inline style, parsed here, would be checked against this page's CSP.
  const start = markup.indexOf('<main');
  const end = markup.lastIndexOf('</main>');
  if (start < 0 || end < start) return null;
  const page = new DOMParser().parseFromString(markup.slice(start, end + 7), 'text/html');
  const section = one<HTMLElement>('[data-unavailable]', page);
  if (!section) return null;
  const text = (e: Element) => (e.textContent || '').replace(/\s+/g, ' ').trim();
  const reference = one('[data-reference]', section);
  return { said: all('[data-say]', section).map(text), reference: reference ? text(reference) : '' };
}

/** The message in place, at the top of the page, with "Try again" sending the same form again. */
function showFailure(
  form: HTMLFormElement,
  submitter: HTMLButtonElement | null,
  markup: string | null,
): void {
  const words = markup === null ? null : serverWords(markup);
  allowAgain(form);
  const note = document.createElement('div');
  note.className = 'notice bad unavailable-note';
  note.setAttribute('role', 'alert');
  note.setAttribute('data-unavailable-note', '');
  note.tabIndex = -1;
  // Nothing came back: whether a prompt went out is unknown for a form that may send one.
  const said = words
    ? words.said
    : [
        t('offlineTitle'),
        t(submitter && submitter.hasAttribute('data-prompt') ? 'offlinePrompt' : 'offlineNothing'),
        t('offlineKept'),
      ];
  said.forEach((text, i) => append(note, i === 0 ? 'h2' : 'p', text));
  const actions = append(note, 'div');
  actions.className = 'actions';
  const again = append(actions, 'button', t('tryAgain'));
  again.type = 'button';
  again.className = 'primary';
  again.addEventListener('click', () => {
    again.disabled = true;
    // Through the form's own checks and once-only guard, as the buyer's first press went.
    if (submitter) submitter.click();
    else form.requestSubmit();
  });
  if (words && words.reference) append(note, 'p', words.reference).className = 'muted';
  const main = one<HTMLElement>('main') || document.body;
  const previous = one('[data-unavailable-note]');
  if (previous) previous.remove();
  main.insertBefore(note, main.firstChild);
  note.focus();
}

function send(form: HTMLFormElement, submitter: HTMLButtonElement | null): void {
  const body = new URLSearchParams(new FormData(form) as unknown as string[][]);
  if (submitter && submitter.name) body.append(submitter.name, submitter.value);
  // The attributes: form.action would be the form's own buttons, which are named "action". The
  // language switch has its own (formaction, with ?lang=).
  const action = (submitter && submitter.getAttribute('formaction')) || form.getAttribute('action');
  const url = new URL(action || '', location.href).href;
  const lang = submitter && submitter.value === 'language' ? submitter.lang : '';
  fetch(url, { method: 'POST', body, cache: 'no-store', headers: { accept: 'text/html' } })
    .then((response) =>
      response.text().then((markup) => {
        if (replaced()) return;
        // On the 503 page itself, a second 503 is its fresh copy (a new reference).
        if (response.status === 503 && !one('[data-unavailable]')) showFailure(form, submitter, markup);
        else {
          showPage(markup, response.redirected ? response.url : null);
          // After a language switch the address names the language, so a reload keeps it.
          if (lang) history.replaceState(history.state, '', `${location.pathname}?lang=${lang}`);
        }
      }),
    )
    .catch(() => {
      if (!replaced()) showFailure(form, submitter, null);
    });
}

/**
 * A payment by card on a top-level page: its answer leads to the provider's card page, which fetch
 * could not show, so the browser sends it and follows. In checkout.js's frame the answer is the wait
 * screen (the card page opens in a new tab), sent in place as any other.
 */
function toCardPage(form: HTMLFormElement, submitter: Element | null): boolean {
  const paying =
    (submitter as HTMLButtonElement | null)?.value === 'pay' ||
    /\/retry$/.test(form.getAttribute('action') || '');
  return paying && document.body.dataset.mode !== 'embedded' && onPage(chosenMethodOf(form));
}

/** Every form that posts to the checkout, once the page's other submit handlers have had their say. */
export function sendFormsInPlace(): void {
  all<HTMLFormElement>('form[method="post"]:not([data-cancel])').forEach((form) =>
    form.addEventListener('submit', (event) => {
      const submitter = (event as SubmitEvent).submitter;
      // A browser that cannot say which button sent the form sends it itself, as without the script.
      if (event.defaultPrevented || submitter === undefined || toCardPage(form, submitter)) return;
      event.preventDefault();
      send(form, submitter as HTMLButtonElement | null);
    }),
  );
}
