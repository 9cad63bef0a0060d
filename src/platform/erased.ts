// The marker that takes the place of a person's data once it is erased (src/privacy/): a buyer's
// name, email and phone, a participant's name, a payer's number. Every module that shows or sends
// such a field reads it, so it lives with the plumbing. It is no valid email address or phone
// number on purpose: a reader that tried to send to it is refused by the shape checks, and a
// person reading a page or a CSV file sees plainly that the data was erased.
export const ERASED = '[erased]';

/** Whether a personal field holds the marker (its data was erased). */
export function isErased(value: string | null | undefined): boolean {
  return value === ERASED;
}
