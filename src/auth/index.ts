// API clients, tokens, the bearer and publishable-key guard, CORS and the API request log.
export { changeClientOrigin, MAX_CLIENT_ORIGINS } from './actions/change-client-origin.ts';
export type { ListFull } from './actions/change-client-origin.ts';
export type { ClientRevoked } from './actions/client-actor.ts';
export {
  regeneratePublishableKey,
  revokeApiClient,
  rotateClientSecret,
} from './actions/client-credentials.ts';
export { createApiClient } from './actions/create-api-client.ts';
export type { ClientLimitReached } from './actions/create-api-client.ts';
export { updateApiClient } from './actions/update-api-client.ts';
export { credentialLapse, guard } from './authenticate.ts';
export type { CredentialLapse, PartnerAuth } from './authenticate.ts';
export { checkClientLists, checkDisplayName, DISPLAY_NAME_MAX_LENGTH } from './client-lists.ts';
export {
  clientDisplayName,
  clientLimitMessage,
  ClientOut,
  findApiClient,
  insertApiClient,
  listApiClients,
  toClientOut,
} from './clients.ts';
export type { ApiClientRow } from './clients.ts';
export { registerCors } from './cors.ts';
export { parseOrigin } from './origins.ts';
export { refusePartnerCredentials } from './refuse-partner-credentials.ts';
export { listRequestLog, recordApiRequests, RequestLog } from './request-log.ts';
export type { RequestLogRow } from './request-log.ts';
export { ALL_SCOPES, DEFAULT_SCOPES, SCOPE_DESCRIPTIONS } from './scopes.ts';
export type { Scope } from './scopes.ts';
export { registerTokenRoute } from './token.routes.ts';
