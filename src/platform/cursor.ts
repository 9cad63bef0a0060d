// Opaque list cursors: AES-256-GCM over {organization, resource, filters hash, last key}. Anything
// that does not open, or opens for another organization, resource or filter set, is refused.
import { createHash } from 'node:crypto';
import { open, seal } from './crypto.ts';

interface CursorBody {
  o: string;
  r: string;
  f: string;
  k: unknown;
}

/** Stable hash of the filters that produced a page (key order does not matter). */
function filtersHash(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .filter((k) => filters[k] !== undefined)
      .map((k) => [k, filters[k]]),
  );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(
  key: Buffer,
  scope: { organizationId: string; resource: string; filters: Record<string, unknown> },
  position: unknown,
): string {
  const body: CursorBody = {
    o: scope.organizationId,
    r: scope.resource,
    f: filtersHash(scope.filters),
    k: position,
  };
  return seal(key, JSON.stringify(body));
}

/** The position stored in a cursor, or null when the cursor is not valid for this scope. */
export function decodeCursor(
  key: Buffer,
  scope: { organizationId: string; resource: string; filters: Record<string, unknown> },
  cursor: string,
): unknown {
  if (cursor.length === 0 || cursor.length > 1024) return null;
  const plain = open(key, cursor);
  if (plain === null) return null;
  try {
    const body = JSON.parse(plain) as CursorBody;
    if (
      body.o !== scope.organizationId ||
      body.r !== scope.resource ||
      body.f !== filtersHash(scope.filters)
    ) {
      return null;
    }
    return body.k ?? null;
  } catch {
    return null;
  }
}
