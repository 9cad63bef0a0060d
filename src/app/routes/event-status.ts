// The status changes of an event in the organizer app's words: publish (draft or closed -> open),
// close (open -> closed) and cancel (any but cancelled -> cancelled, for good). Which change may
// start from which status is the action's (events/actions/change-event-status.ts).
import { STATUS_CHANGE_NAMES, statusChangeAllowed, type StatusChange } from '../../events/index.ts';

export const STATUS_ACTIONS = STATUS_CHANGE_NAMES;
export type StatusAction = StatusChange;

interface ActionWords {
  verb: string;
  /** what the confirmation page says will happen */
  effect: string;
}

export const ACTION_RULES: Record<StatusAction, ActionWords> = {
  publish: {
    verb: 'Publish',
    effect:
      'Runners can register for it through your checkout while its registration window and each ticket type’s sales window are open.',
  },
  close: {
    verb: 'Close',
    effect:
      'No new registrations are taken. Orders already paid stay as they are. You can publish it again later.',
  },
  cancel: {
    verb: 'Cancel',
    effect:
      'No new registrations are taken and the event shows as cancelled. This cannot be undone. Paid orders are not refunded by this: refund them from each order.',
  },
};

export const STATUS_LABELS: Record<string, string> = {
  draft: 'Draft',
  open: 'Open',
  closed: 'Closed',
  cancelled: 'Cancelled',
};

/** Why `action` cannot be done from `status`, in words; null when it can. */
export function refusalOf(action: StatusAction, status: string): string | null {
  if (statusChangeAllowed(action, status)) return null;
  const label = (STATUS_LABELS[status] ?? status).toLowerCase();
  if (status === 'cancelled') return `This event is cancelled, so it cannot be changed any more.`;
  if (action === 'publish') return `This event is already ${label}, so there is nothing to publish.`;
  if (action === 'close') return `Only an open event can be closed; this one is ${label}.`;
  return `This event cannot be cancelled while it is ${label}.`;
}

/** The actions offered from `status`. */
export function actionsFrom(status: string): StatusAction[] {
  return STATUS_ACTIONS.filter((a) => refusalOf(a, status) === null);
}
