// The admin client routes' wire types: what a create and a patch take, and the answers that show
// a secret or a publishable key.
import { Type } from 'typebox';
import { ClientOut } from '../../auth/clients.ts';
import { ALL_SCOPES } from '../../auth/scopes.ts';
import { Name } from '../admin-schemas.ts';

const ScopeList = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 20,
  description: `Any of: ${ALL_SCOPES.join(', ')}`,
});
const OriginList = Type.Array(Type.String({ maxLength: 2048 }), {
  maxItems: 100,
  description: 'Full origins: https://host[:port], or http://localhost:<port> / http://127.0.0.1:<port>',
});

export const ClientCreateIn = Type.Object(
  {
    name: Name,
    scopes: ScopeList,
    allowed_domains: Type.Optional(OriginList),
    return_url_domains: Type.Optional(OriginList),
  },
  { additionalProperties: false },
);

export const ClientPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
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
