// The wire checks of the admin event routes that no schema states: dates that pass the date-time
// format but name no real instant, and the questions' defaults. The business rules are the
// actions' (events/actions/).
import type { AdditionalQuestion } from '../../events/index.ts';
import { uniqueErrors, validationError, type FieldError } from '../../platform/index.ts';
import type { QuestionIn } from './event-admin.schema.ts';

export const EVENT_DATES = ['starts_at', 'ends_at', 'reg_opens_at', 'reg_closes_at'];
export const SALES_DATES = ['sales_start', 'sales_end'];

export function toQuestions(questions: QuestionIn[] | undefined): AdditionalQuestion[] | undefined {
  return questions?.map((q) => ({
    key: q.key,
    label: q.label,
    type: q.type,
    required: q.required ?? false,
    options: q.options ?? [],
    help: q.help ?? '',
  }));
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(uniqueErrors(errors));
}
