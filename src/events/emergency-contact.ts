// The emergency contact: two built-in questions an organizer switches on per event, answered for
// each runner like any other question and kept in the registration's answers under fixed keys, so
// that exports, the order page and the check-in page find them without a second place to look
// (docs/decisions/emergency-contact.md).
import type { AdditionalQuestion } from './events.schema.ts';

export const EMERGENCY_CONTACT_NAME = 'emergency_contact_name';
export const EMERGENCY_CONTACT_PHONE = 'emergency_contact_phone';

const QUESTIONS: readonly AdditionalQuestion[] = [
  {
    key: EMERGENCY_CONTACT_NAME,
    label: 'Emergency contact name',
    type: 'text',
    required: true,
    options: [],
    help: 'Someone we can call on race day if the runner needs help.',
  },
  {
    key: EMERGENCY_CONTACT_PHONE,
    label: 'Emergency contact phone',
    type: 'phone',
    required: true,
    options: [],
    help: '',
  },
];

/** Whether `key` is one of the built-in questions' keys (an organizer's own question may not use it). */
export function isEmergencyContactKey(key: string): boolean {
  return key === EMERGENCY_CONTACT_NAME || key === EMERGENCY_CONTACT_PHONE;
}

/** Whether the event asks for an emergency contact. */
export function asksEmergencyContact(questions: readonly AdditionalQuestion[]): boolean {
  return questions.some((q) => q.key === EMERGENCY_CONTACT_NAME);
}

/** The organizer's own questions followed, when `on`, by the built-in pair. */
export function withEmergencyContact(
  questions: readonly AdditionalQuestion[],
  on: boolean,
): AdditionalQuestion[] {
  const own = questions.filter((q) => !isEmergencyContactKey(q.key));
  return on ? [...own, ...QUESTIONS.map((q) => ({ ...q, options: [] }))] : own;
}
