// HTML building for server-rendered pages (hosted checkout, organizer app): one escape function
// and a tagged template whose interpolations are escaped unless they are already Html.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup that is already safe: produced by `html`, or a constant written in this module's callers. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** html`<p>${text}</p>`: every interpolation is escaped (attribute values must be quoted). */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup from a constant; never pass input to it. */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** `attr('disabled', true)` -> ` disabled`; `attr('value', 'x')` -> ` value="x"`; false/null/undefined -> nothing. */
export function attr(name: string, value: string | number | boolean | null | undefined): Html {
  if (value === false || value === null || value === undefined) return raw('');
  if (value === true) return raw(` ${name}`);
  return raw(` ${name}="${escapeHtml(String(value))}"`);
}
