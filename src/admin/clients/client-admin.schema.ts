// The admin client routes' wire types: what a create and a patch take, and the answers that show
// a secret or a publishable key.
import { Type } from 'typebox';
import { ALL_SCOPES, ClientOut, DISPLAY_NAME_MAX_LENGTH } from '../../auth/index.ts';
import { Name } from '../admin-schemas.ts';

export const ScopeList = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 20,
  description: `Any of: ${ALL_SCOPES.join(', ')}`,
});
const OriginList = Type.Array(Type.String({ maxLength: 2048 }), {
  maxItems: 100,
  description: 'Full origins: https://host[:port], or http://localhost:<port> / http://127.0.0.1:<port>',
});

// Its rules (1 to 60 characters once trimmed, no control characters) are checked with the lists
// (auth/client-lists.ts), so the answer says them in words; this bound only caps what is read.
export const DisplayName = Type.String({
  maxLength: 1000,
  description: `Shown to buyers in the checkout, e.g. on 'Back to …' buttons: 1 to ${DISPLAY_NAME_MAX_LENGTH} characters once trimmed, no control characters`,
});

export const ClientCreateIn = Type.Object(
  {
    name: Name,
    display_name: Type.Optional(Type.Union([DisplayName, Type.Null()])),
    scopes: ScopeList,
    allowed_domains: Type.Optional(OriginList),
    return_url_domains: Type.Optional(OriginList),
  },
  { additionalProperties: false },
);

export const ClientPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
    /** null removes it */
    display_name: Type.Optional(Type.Union([DisplayName, Type.Null()])),
    scopes: Type.Optional(ScopeList),
    allowed_domains: Type.Optional(OriginList),
    return_url_domains: Type.Optional(OriginList),
  },
  { additionalProperties: false },
);

// The created client shows its secret, once, right after its id.
const { client_id, ...clientFields } = ClientOut.properties;
export const ClientCreatedOut = Type.Object({
  client_id,
  client_secret: Type.String({ description: 'Shown once; store it now' }),
  ...clientFields,
});

export const SecretOut = Type.Object({ client_id: Type.String(), client_secret: Type.String() });
export const PublishableKeyOut = Type.Object({ client_id: Type.String(), publishable_key: Type.String() });
