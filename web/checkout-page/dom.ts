// Element lookups as arrays (filter, map, indexOf), typed by the caller, and new elements.

export function all<T extends Element>(selector: string, root: ParentNode = document): T[] {
  return Array.prototype.slice.call(root.querySelectorAll(selector)) as T[];
}

export function one<T extends Element>(selector: string, root: ParentNode = document): T | null {
  return root.querySelector(selector) as T | null;
}

/** A new element with `text`, appended to `parent`. */
export function append<K extends keyof HTMLElementTagNameMap>(
  parent: Node,
  tag: K,
  text = '',
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.textContent = text;
  parent.appendChild(element);
  return element;
}
