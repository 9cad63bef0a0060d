// A provider's callback body as an object, for the methods' callback parsers. A callback is
// unauthenticated input and never proof of payment (docs/decisions/callbacks-are-hints.md).

export function callbackObject(body: unknown): Record<string, unknown> | null {
  if (typeof body === 'string') {
    try {
      return callbackObject(JSON.parse(body));
    } catch {
      return null;
    }
  }
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}
