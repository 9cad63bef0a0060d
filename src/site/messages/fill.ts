// Filling in a message template: the page script bundles this alone, never the catalogs.

/** "{n} tickets" with {n} = 2 -> "2 tickets". */
export function fill(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}
