// Cursor pagination: the API answers a page with next_cursor and has_more; `paginate` walks every
// page lazily so `for await` sees each item once, fetching the next page only when needed.

export interface Page {
  next_cursor: string | null;
  has_more: boolean;
}

export async function* paginate<P extends Page, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  itemsOf: (page: P) => T[],
  firstCursor?: string,
): AsyncGenerator<T, void, undefined> {
  let cursor = firstCursor;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    if (!page.has_more || !page.next_cursor) return;
    cursor = page.next_cursor;
  }
}
