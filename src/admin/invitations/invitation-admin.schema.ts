// The admin invitation routes' wire types. The email's shape is checked by the invite action
// (members/actions/invite-member.ts), the same for the admin API and the organizer app.
import { Type } from 'typebox';
import { MEMBER_ROLES } from '../../members/index.ts';
import { Timestamp } from '../../platform/index.ts';

const Role = Type.Enum([...MEMBER_ROLES], {
  description:
    'owner: everything; admin: everything but removing owners; developer: developer settings, read elsewhere; viewer: read only; checker: race-day check-in only',
});

export const InvitationCreateIn = Type.Object(
  {
    email: Type.String({ maxLength: 254, description: 'who is invited; the link is for this address' }),
    role: Role,
  },
  { additionalProperties: false },
);

export const InvitationCreatedOut = Type.Object({
  invitation_url: Type.String({ description: 'Single use; send it to the person invited. Shown once' }),
  expires_at: Timestamp,
  email: Type.String(),
  role: Type.String(),
});

/** A pending invitation: never its token or link. */
export const PendingInvitationOut = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  invited_by: Type.Union([Type.String(), Type.Null()], {
    description: 'member id; null when the operator invited',
  }),
  expires_at: Timestamp,
  created_at: Timestamp,
});
