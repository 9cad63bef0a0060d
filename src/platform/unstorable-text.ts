// Text PostgreSQL cannot store as given: a NUL character fails the query, and a lone surrogate
// would silently become U+FFFD. Checked on every request before anything reads its input.
import type { FieldError } from './errors.ts';

/** A UTF-16 surrogate without its pair: not Unicode text, and not storable as it is. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  return LONE_SURROGATE.test(text) ? 'must be valid Unicode text' : null;
}

/** A key without the characters that made it unstorable, to name it in the error. */
function readableKey(key: string): string {
  return Array.from(key)
    .filter((c) => c !== '\u0000' && !LONE_SURROGATE.test(c))
    .join('');
}

/** The first string (or key) holding a NUL character or a lone surrogate, as a field error. */
export function unstorableField(value: unknown, path: string, depth = 0): FieldError | null {
  if (typeof value === 'string') {
    const message = unstorableText(value);
    return message ? { field: path, message } : null;
  }
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const message = unstorableText(key);
    if (message) return { field: `${path}.${readableKey(key)}`, message };
    const found = unstorableField(inner, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}
