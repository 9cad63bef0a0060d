// The cross-field checks of the admin event routes: the schema checks each field, these run on
// the merged result (an update's fields over the stored event), plus the conflict a taken handle
// raises.
import type { AdditionalQuestion } from '../../events/events.ts';
import { ApiError, validationError, type FieldError } from '../../platform/errors.ts';
import { uniqueErrors } from '../admin-schemas.ts';
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

/**
 * A ticket type's sales window, with the sides not given taken from `current` (the event's
 * registration window for a new ticket type, the stored window for an update), must not be empty.
 */
export function salesWindowErrors(
  tt: { sales_start?: string | undefined; sales_end?: string | undefined },
  current: { start: Date; end: Date },
  prefix = '',
): FieldError[] {
  const start = tt.sales_start !== undefined ? Date.parse(tt.sales_start) : current.start.getTime();
  const end = tt.sales_end !== undefined ? Date.parse(tt.sales_end) : current.end.getTime();
  if (!Number.isFinite(start) || !Number.isFinite(end) || end > start) return [];
  if (tt.sales_start !== undefined && tt.sales_end !== undefined) {
    return [{ field: `${prefix}sales_end`, message: 'must be after sales_start' }];
  }
  if (tt.sales_end !== undefined) {
    return [
      { field: `${prefix}sales_end`, message: `must be after sales_start (${current.start.toISOString()})` },
    ];
  }
  return [
    { field: `${prefix}sales_start`, message: `must be before sales_end (${current.end.toISOString()})` },
  ];
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(uniqueErrors(errors));
}

export function handleTaken(handle: string | undefined): ApiError {
  return new ApiError(
    'conflict',
    `The handle "${handle ?? ''}" is already used by another event of this organization; choose another.`,
  );
}
