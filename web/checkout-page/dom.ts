// Element lookups as arrays (filter, map, indexOf), typed by the caller.

export function all<T extends Element>(selector: string, root: ParentNode = document): T[] {
  return Array.prototype.slice.call(root.querySelectorAll(selector)) as T[];
}

export function one<T extends Element>(selector: string, root: ParentNode = document): T | null {
  return root.querySelector(selector) as T | null;
}
