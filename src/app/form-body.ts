// The organizer app's form bodies: application/x-www-form-urlencoded read into names with every
// value kept (scope checkboxes repeat a name), and field readers that turn a missing, oversized or
// unknown value into a message for the form instead of an error page.
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

/** A numeric keyword of a schema (maxLength, maxItems, bounds): how the admin API's limits are read here. */
export function limitOf(schema: TSchema, keyword: 'maxLength' | 'maxItems' | 'minimum' | 'maximum'): number {
  const value: unknown = Reflect.get(schema, keyword);
  if (typeof value !== 'number') throw new Error(`the schema has no ${keyword}`);
  return value;
}

/** A schema's `pattern` as a RegExp, so that a form checks what the admin API checks. */
export function patternOf(schema: TSchema): RegExp {
  const value: unknown = Reflect.get(schema, 'pattern');
  if (typeof value !== 'string') throw new Error('the schema has no pattern');
  return new RegExp(value);
}

export type TextFieldSchema = ReturnType<typeof TextField>;

/**
 * A field's value, checked against its schema: a message in `errors` when it is missing or too
 * long (the value is then cut to the limit, so the form shows what may be kept).
 */
export function readField(body: FormBody, name: string, field: TextFieldSchema, errors: FieldErrors): string {
  return checkField(body.get(name) ?? '', name, field, errors);
}

/** readField for a value that came another way (a query the page also takes, as the form does). */
export function checkField(raw: string, name: string, field: TextFieldSchema, errors: FieldErrors): string {
  const value = field.trim ? raw.trim() : raw;
  if (Value.Errors(field, value).length === 0) return value;
  if (value === '') {
    errors[name] = field.missing ?? `Enter the ${field.title.toLowerCase()}.`;
    return value;
  }
  errors[name] = `${field.title} must be at most ${field.maxLength} characters.`;
  return value.slice(0, field.maxLength);
}

/** A checkbox: checked when it sends its value, `yes`; any other value counts as unchecked. */
export const Checkbox = Type.Literal('yes');

/** A choice (a select, a hidden field): its value when the schema takes it, else null. */
export function readChoice<S extends TSchema>(body: FormBody, name: string, schema: S): Static<S> | null {
  const value = body.get(name);
  return Value.Check(schema, value) ? value : null;
}

/**
 * A list of checkboxes as a TypeBox array schema: the values it offers (the admin API's own list),
 * at most `max` of them (the admin API's maxItems), at least one, and the messages when none is
 * checked (`missing`) or a value is not one of the choices (`unknown`).
 */
export function ChoiceList<const Choice extends string>(rule: {
  label: string;
  choices: readonly Choice[];
  max: number;
  missing: string;
  unknown: string;
}) {
  const keywords = { title: rule.label, minItems: 1, maxItems: rule.max };
  return Object.assign(Type.Array(Type.Enum([...rule.choices]), keywords), keywords, {
    missing: rule.missing,
    unknown: rule.unknown,
  });
}

/**
 * The checked values of a checkbox list, each once: a message in `errors` when none is checked or
 * one is not a choice. What is returned holds only choices (at most the limit), so that the form
 * shown again checks what may be kept.
 */
export function readChoices<Choice extends string>(
  body: FormBody,
  name: string,
  field: ReturnType<typeof ChoiceList<Choice>>,
  errors: FieldErrors,
): Choice[] {
  const checked = [...new Set(body.all(name))];
  if (checked.length === 0) errors[name] = field.missing;
  else if (!Value.Check(field, checked)) errors[name] = field.unknown;
  return checked.filter((value): value is Choice => Value.Check(field.items, value)).slice(0, field.maxItems);
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
