// The event form's questions: one group of fields per question (q0_key, q0_label...), the spare
// empty rows to add one without JavaScript, and their reading into the admin API's questions. The
// built-in emergency contact is the form's box, not rows (events/emergency-contact.ts).
import { isEmergencyContactKey, withEmergencyContact, type AdditionalQuestion } from '../../events/index.ts';
import { EVENT_FORM_LIMITS, EVENT_FORM_PATTERNS, QuestionForm } from '../app-forms.schema.ts';
import { readChoice, readField, type FieldErrors, type FormBody } from '../form-body.ts';

/** Empty rows offered under the event's questions, so one can be added without JavaScript. */
const SPARE_QUESTIONS = 2;
const MAX_QUESTIONS = EVENT_FORM_LIMITS.questions;

/** The form's rows for the stored questions, the emergency contact left to its box. */
export function questionValues(questions: readonly AdditionalQuestion[]): Record<string, string> {
  const values: Record<string, string> = {};
  withEmergencyContact(questions, false).forEach((q, i) => {
    values[`q${i}_key`] = q.key;
    values[`q${i}_label`] = q.label;
    values[`q${i}_type`] = q.type;
    values[`q${i}_required`] = q.required ? 'yes' : '';
    values[`q${i}_options`] = q.options.join(', ');
    values[`q${i}_help`] = q.help;
  });
  return values;
}

/** How many question rows the form shows: every filled one plus the spare ones. */
export function questionRows(values: Record<string, string>): number {
  let filled = 0;
  for (let i = 0; i < MAX_QUESTIONS; i++) {
    if (values[`q${i}_key`] || values[`q${i}_label`]) filled = i + 1;
  }
  return Math.min(MAX_QUESTIONS, filled + SPARE_QUESTIONS);
}

/**
 * "T-shirt size?" -> "t_shirt_size": lowercase letters, digits and _, starting with a letter, at
 * most 40 characters, "_2" and on when an earlier question took it.
 */
function keyFromLabel(label: string, taken: ReadonlySet<string>): string {
  const base =
    label
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^[^a-z]+/, '')
      .slice(0, 40)
      .replace(/_+$/, '') || 'question';
  let key = base;
  for (let n = 2; taken.has(key) || isEmergencyContactKey(key); n++) key = `${base}_${n}`;
  return key;
}

/** "Question 2: " before a message of the question's row, which the form shows in a group. */
function inQuestion(n: number, message: string): string {
  return `Question ${n}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

export function readQuestions(body: FormBody, values: Record<string, string>, errors: FieldErrors) {
  const questions: AdditionalQuestion[] = [];
  const keys = new Set<string>();
  const fields = QuestionForm.properties;
  for (let i = 0; i < MAX_QUESTIONS; i++) {
    const name = (f: string) => `q${i}_${f}`;
    const rowErrors: FieldErrors = {};
    const row = {
      key: readField(body, name('key'), fields.key, rowErrors),
      label: readField(body, name('label'), fields.label, rowErrors),
      type: readChoice(body, name('type'), fields.type),
      required: readChoice(body, name('required'), fields.required),
      options: readField(body, name('options'), fields.options, rowErrors),
      help: readField(body, name('help'), fields.help, rowErrors),
    };
    for (const [f, v] of Object.entries(row)) values[name(f)] = v ?? '';
    if (!row.key && !row.label) continue;
    const n = i + 1;
    // a key left empty is made from the question, and shown on the form for next time
    if (!row.key && !rowErrors[name('label')]) row.key = keyFromLabel(row.label, keys);
    values[name('key')] = row.key;
    for (const [field, message] of Object.entries(rowErrors)) errors[field] = inQuestion(n, message);
    if (!errors[name('key')] && !EVENT_FORM_PATTERNS.questionKey.test(row.key)) {
      errors[name('key')] =
        `Question ${n}: enter a key of lowercase letters, digits and _, starting with a letter.`;
    } else if (!errors[name('key')] && isEmergencyContactKey(row.key)) {
      errors[name('key')] =
        `Question ${n}: the key ${row.key} is the emergency contact's: tick its box instead.`;
    } else if (!errors[name('key')] && keys.has(row.key)) {
      errors[name('key')] = `Question ${n}: another question already uses the key ${row.key}.`;
    }
    keys.add(row.key);
    if (!row.label) errors[name('label')] = `Question ${n}: enter the question.`;
    if (!row.type) errors[name('type')] = `Question ${n}: choose the kind of answer.`;
    const type = row.type ?? 'text';
    const options = row.options
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    // A list too long to read already says so.
    const listed = !errors[name('options')];
    if (listed && type === 'select' && options.length === 0) {
      errors[name('options')] = `Question ${n}: list the choices, separated by commas.`;
    } else if (
      listed &&
      (options.length > EVENT_FORM_LIMITS.choices || options.some((o) => o.length > EVENT_FORM_LIMITS.choice))
    ) {
      errors[name('options')] =
        `Question ${n}: at most ${EVENT_FORM_LIMITS.choices} choices of up to ${EVENT_FORM_LIMITS.choice} characters.`;
    }
    questions.push({
      key: row.key,
      label: row.label,
      type,
      required: row.required !== null,
      options: type === 'select' ? options : [],
      help: row.help,
    });
  }
  return questions;
}
