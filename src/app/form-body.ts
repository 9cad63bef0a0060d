// The organizer app's form bodies: application/x-www-form-urlencoded read into names with every
// value kept (scope checkboxes repeat a name), and field readers that turn a missing or oversized
// value into a message for the form instead of an error page.

/** Forms are small; anything larger is refused (413) before it is parsed. */
export const FORM_BODY_LIMIT_BYTES = 16 * 1024;

export class FormBody {
  /** a plain record, so that the platform's check for unstorable text (NUL) walks every value */
  readonly values: Readonly<Record<string, string[]>>;

  constructor(values: Record<string, string[]>) {
    this.values = values;
  }

  static parse(text: string): FormBody {
    const values = Object.create(null) as Record<string, string[]>;
    for (const [name, value] of new URLSearchParams(text)) {
      (values[name] ??= []).push(value);
    }
    return new FormBody(values);
  }

  static empty(): FormBody {
    return new FormBody(Object.create(null) as Record<string, string[]>);
  }

  /** the first value of a name, or undefined */
  get(name: string): string | undefined {
    return this.values[name]?.[0];
  }

  all(name: string): readonly string[] {
    return this.values[name] ?? [];
  }
}

/** The parsed body of a request (an empty one for GET or a body the parser did not produce). */
export function formOf(body: unknown): FormBody {
  return body instanceof FormBody ? body : FormBody.empty();
}

/** Field name -> the message shown next to it. */
export type FieldErrors = Record<string, string>;

export interface FieldRule {
  label: string;
  max: number;
  /** trimmed before checking (emails, names); passwords are taken as typed */
  trim?: boolean;
  required?: boolean;
  /** the message when it is required and empty */
  missing?: string;
}

/** A field's value, recording a message in `errors` when it is missing or too long. */
export function readField(body: FormBody, name: string, rule: FieldRule, errors: FieldErrors): string {
  const raw = body.get(name) ?? '';
  const value = rule.trim ? raw.trim() : raw;
  if ((rule.required ?? true) && value === '') {
    errors[name] = rule.missing ?? `Enter the ${rule.label.toLowerCase()}.`;
  } else if (value.length > rule.max) {
    errors[name] = `${rule.label} must be at most ${rule.max} characters.`;
    return value.slice(0, rule.max);
  }
  return value;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
