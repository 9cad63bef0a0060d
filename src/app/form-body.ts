// The organizer app's form bodies: application/x-www-form-urlencoded read into names with every
// value kept (scope checkboxes repeat a name), and field readers that turn a missing or oversized
// value into a message for the form instead of an error page.
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';

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

/**
 * A text field of a form as a TypeBox string schema: its label (`title`), its limit (`maxLength`:
 * the admin API's where the same thing is written there) and whether it is required (`minLength`
 * 1). Two keywords of the app's own say how it is read: `trim` (emails, names; passwords are
 * taken as typed) and `missing`, the message when a required field is empty.
 */
export function TextField(rule: {
  label: string;
  max: number;
  trim?: boolean;
  required?: boolean;
  missing?: string;
}) {
  const minLength = (rule.required ?? true) ? 1 : 0;
  const keywords = { title: rule.label, maxLength: rule.max, minLength, trim: rule.trim ?? false };
  return Object.assign(Type.String(keywords), keywords, { missing: rule.missing });
}

/** A numeric keyword of a schema (maxLength, maxItems): how the admin API's limits are read here. */
export function limitOf(schema: TSchema, keyword: 'maxLength' | 'maxItems'): number {
  const value: unknown = Reflect.get(schema, keyword);
  if (typeof value !== 'number') throw new Error(`the schema has no ${keyword}`);
  return value;
}

export type TextFieldSchema = ReturnType<typeof TextField>;

/**
 * A field's value, checked against its schema: a message in `errors` when it is missing or too
 * long (the value is then cut to the limit, so the form shows what may be kept).
 */
export function readField(body: FormBody, name: string, field: TextFieldSchema, errors: FieldErrors): string {
  const raw = body.get(name) ?? '';
  const value = field.trim ? raw.trim() : raw;
  if (Value.Errors(field, value).length === 0) return value;
  if (value === '') {
    errors[name] = field.missing ?? `Enter the ${field.title.toLowerCase()}.`;
    return value;
  }
  errors[name] = `${field.title} must be at most ${field.maxLength} characters.`;
  return value.slice(0, field.maxLength);
}

/** A choice (a select, a hidden field): its value when the schema takes it, else null. */
export function readChoice<S extends TSchema>(body: FormBody, name: string, schema: S): Static<S> | null {
  const value = body.get(name);
  return Value.Check(schema, value) ? value : null;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
