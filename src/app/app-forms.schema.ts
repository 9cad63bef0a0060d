// The organizer app's form bodies as TypeBox schemas: each text field's label and limit, read by
// readField (form-body.ts), which puts a message next to the field when it is missing or too long.
// Where the admin API takes the same thing its limit is imported here, never written again; this
// is a schema file so that it may import the admin API's.
import { Type } from 'typebox';
import { MAX_INT, Name } from '../admin/admin-schemas.ts';
import { EventCreateIn, QuestionIn, TicketTypeIn } from '../admin/events/event-admin.schema.ts';
import { DisplayName, ScopeList } from '../admin/clients/client-admin.schema.ts';
import { InvitationCreateIn } from '../admin/invitations/invitation-admin.schema.ts';
import { EMAIL_MAX_LENGTH } from '../members/members.ts';
import { PASSWORD_MAX_LENGTH } from '../members/passwords.ts';
import { limitOf, TextField } from './form-body.ts';

/** A display name as the admin API caps what it reads; its rules are checked in words after. */
const DisplayNameField = Type.Optional(DisplayName);
/** How much of a typed display name is read. */
export const DISPLAY_NAME_READ = limitOf(DisplayName, 'maxLength');

export const SignInForm = Type.Object({
  email: TextField({
    label: 'Email',
    max: EMAIL_MAX_LENGTH,
    trim: true,
    missing: 'Enter your email address.',
  }),
  password: TextField({ label: 'Password', max: PASSWORD_MAX_LENGTH, missing: 'Enter your password.' }),
});

export const ResetRequestForm = Type.Object({ email: SignInForm.properties.email });

export const NewPasswordForm = Type.Object({
  password: TextField({ label: 'New password', max: PASSWORD_MAX_LENGTH, missing: 'Enter a new password.' }),
});

export const InvitationForm = Type.Object({
  name: TextField({ label: 'Name', max: limitOf(Name, 'maxLength'), trim: true, required: false }),
  password: TextField({ label: 'Password', max: PASSWORD_MAX_LENGTH, missing: 'Enter a password.' }),
});

export const ChangePasswordForm = Type.Object({
  current: TextField({
    label: 'Current password',
    max: PASSWORD_MAX_LENGTH,
    missing: 'Enter your current password.',
  }),
  next: NewPasswordForm.properties.password,
});

export const InviteMemberForm = Type.Object({
  email: TextField({
    label: 'Email',
    max: limitOf(InvitationCreateIn.properties.email, 'maxLength'),
    trim: true,
    missing: 'Enter the email address to invite.',
  }),
  role: InvitationCreateIn.properties.role,
});

export const ChangeRoleForm = Type.Object({ role: InvitationCreateIn.properties.role });

/** Adding to or removing from one of a client's two origin lists. */
export const ClientDomainForm = Type.Object({
  list: Type.Union([Type.Literal('allowed_domains'), Type.Literal('return_url_domains')]),
  origin: Type.Optional(Type.String()),
  allowed_domain: Type.Optional(Type.String()),
  return_url_domain: Type.Optional(Type.String()),
});

export const CreateClientForm = Type.Object({
  name: TextField({
    label: 'Name',
    max: limitOf(Name, 'maxLength'),
    trim: true,
    missing: 'Enter a name for the client.',
  }),
  display_name: DisplayNameField,
  scopes: Type.Optional(ScopeList),
});

export const ClientDisplayNameForm = Type.Object({ display_name: DisplayNameField });
export const ClientScopesForm = Type.Object({ scopes: Type.Optional(ScopeList) });

export const WebhookEndpointForm = Type.Object({
  // Read beyond the API's own limit, so that the URL check says what is wrong with a long one.
  url: TextField({ label: 'Endpoint URL', max: 4096, trim: true, missing: 'Enter the endpoint URL.' }),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 100 }))),
});

const event = EventCreateIn.properties;
const max = (schema: Parameters<typeof limitOf>[0]) => limitOf(schema, 'maxLength');

/** The event form's text fields; dates, questions and choices are read by event-form.ts. */
export const EventForm = Type.Object({
  name: TextField({ label: 'Name', max: max(event.name), trim: true }),
  description: TextField({ label: 'Description', max: max(event.description), required: false }),
  venue: TextField({ label: 'Venue', max: max(event.venue), trim: true, required: false }),
  organizer_name: TextField({
    label: 'Organizer name',
    max: max(event.organizer_name),
    trim: true,
    required: false,
  }),
  support_email: TextField({
    label: 'Support e-mail',
    max: max(event.support_email),
    trim: true,
    required: false,
  }),
  cover: TextField({ label: 'Cover image address', max: max(event.cover), trim: true, required: false }),
  timezone: TextField({
    label: 'Time zone',
    max: max(event.timezone),
    trim: true,
    missing: 'Enter the time zone, such as Africa/Kampala.',
  }),
  // The API takes exactly three capitals; the form reads a little more to say so in words.
  currency: TextField({
    label: 'Currency',
    max: 20,
    trim: true,
    missing: 'Enter the currency, such as UGX.',
  }),
  waiver_version: TextField({
    label: 'Waiver version',
    max: max(event.waiver_version),
    trim: true,
    required: false,
  }),
  waiver_text: TextField({ label: 'Waiver text', max: max(event.waiver_text), required: false }),
});

const question = QuestionIn.properties;
const ticketType = TicketTypeIn.properties;

/** The admin API's limits the event and ticket type forms check in their own words. */
export const EVENT_FORM_LIMITS = {
  questions: limitOf(event.additional_questions, 'maxItems'),
  questionLabel: max(question.label),
  choices: limitOf(question.options, 'maxItems'),
  choice: max(question.options.items),
  ticketTypeName: max(ticketType.name),
  capacity: MAX_INT,
} as const;

/**
 * One ticket type's bib range on the start list, read as first_<ticket type id> and
 * last_<ticket type id>; both empty means none. Whether they are numbers is the action's question.
 */
export const BibRangeForm = Type.Object({
  first: TextField({ label: 'First number', max: 20, trim: true, required: false }),
  last: TextField({ label: 'Last number', max: 20, trim: true, required: false }),
});
