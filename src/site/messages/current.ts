// The language of the request being answered, for the checkout pages: ?lang= when the buyer chose
// one (the page's language switch; links and forms then carry it on), else the best match of
// Accept-Language, else English. Held per request (AsyncLocalStorage), so that every view reads
// its copy with msg() without each function passing the catalog down.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CATALOGS, isLocale, type Locale, type Messages } from './catalog.ts';

interface Current {
  locale: Locale;
  /** chosen on the page (?lang=): carried on in the checkout's own links */
  chosen: boolean;
}

const storage = new AsyncLocalStorage<Current>();

/** The first of the Accept-Language ranges, by quality, that names a language we have. */
function fromAcceptLanguage(header: string | undefined): Locale | null {
  const ranges = (header ?? '')
    .slice(0, 500)
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { language: tag.toLowerCase().split('-')[0]!, q: q ? Number(q[1]) : 1, order };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranges.map((r) => r.language).find(isLocale) ?? null;
}

export function pickLocale(query: unknown, acceptLanguage: string | undefined): Current {
  const asked = (query as { lang?: unknown } | null)?.lang;
  if (typeof asked === 'string' && isLocale(asked)) return { locale: asked, chosen: true };
  return { locale: fromAcceptLanguage(acceptLanguage) ?? 'en', chosen: false };
}

/**
 * The checkout session's language (the partner's `locale`) for the rest of the request, over
 * Accept-Language but not over the buyer's own choice (?lang=), which links keep carrying.
 */
export function preferLocale(sessionLocale: string | null): void {
  const current = storage.getStore();
  if (current && !current.chosen && sessionLocale !== null && isLocale(sessionLocale)) {
    current.locale = sessionLocale;
  }
}

/** Runs `next` (the rest of the request) in the language `current`. */
export function runInLocale(current: Current, next: () => void): void {
  storage.run(current, next);
}

export function locale(): Locale {
  return storage.getStore()?.locale ?? 'en';
}

/** The catalog of the request's language (English outside a request). */
export function msg(): Messages {
  return CATALOGS[locale()];
}

/** The query that keeps a language the buyer chose on the checkout's next page ('' otherwise). */
export function langQuery(separator: '?' | '&'): string {
  const current = storage.getStore();
  return current?.chosen ? `${separator}lang=${current.locale}` : '';
}
