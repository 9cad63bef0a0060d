// The page script's words in the buyer's language: the server sends them with the page as a JSON
// data block (src/site/views/layout.ts); a missing one shows its key rather than nothing.
import { fill } from '../../src/site/messages/fill.ts';

let messages: Record<string, string> | null = null;

function load(): Record<string, string> {
  if (messages) return messages;
  const block = document.getElementById('checkout-messages');
  try {
    messages = block ? (JSON.parse(block.textContent || '{}') as Record<string, string>) : {};
  } catch {
    messages = {};
  }
  return messages;
}

export function t(key: string, params: Record<string, string | number> = {}): string {
  const template = load()[key];
  return fill(template === undefined ? key : template, params);
}
