// The scopes a client may hold (docs/contract.md#scopes), and the cap that applies to publishable
// keys (docs/contract.md#publishable-keys).

export const ALL_SCOPES = [
  'events:read',
  'checkout_sessions:write',
  'checkout_sessions:read',
  'orders:read',
  'orders:write',
  'webhooks:write',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

/** What each scope grants, in a line: shown next to its checkbox in the app and in the API document. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'events:read': 'List and read your events on sale',
  'checkout_sessions:write': 'Start hosted or embedded checkouts',
  'checkout_sessions:read': 'Read checkout sessions and their orders',
  'orders:read': "Read orders, with buyers' personal data",
  'orders:write': 'Create and pay orders from your own checkout',
  'webhooks:write': 'Register and manage webhook endpoints through the API',
};

/**
 * What a new client's form ticks: enough to sell through our checkout and read its orders. The
 * scopes that write beyond a checkout (orders, webhook endpoints) are ticked on purpose, so that a
 * leaked secret can do no more than the integration needs (docs/decisions/least-privilege-clients.md).
 */
export const DEFAULT_SCOPES: readonly Scope[] = [
  'events:read',
  'checkout_sessions:write',
  'checkout_sessions:read',
  'orders:read',
];

/** Whatever the client holds, a publishable key can do no more than this. */
export const PUBLISHABLE_SCOPES: readonly Scope[] = ['events:read', 'checkout_sessions:write'];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Effective scopes: what was granted, limited to what the client holds now. */
export function intersectScopes(granted: readonly string[], held: readonly string[]): Scope[] {
  return ALL_SCOPES.filter((s) => granted.includes(s) && held.includes(s));
}
