// Building the page's elements: text is always a text node (never markup), and every string
// a card or a request holds goes in a <bdi> (HTML: bidi isolation, so it cannot reorder the
// text around it), written out by text.js.
import { dateText, visible } from './text.js';

/**
 * An element: `attrs` are attributes, or event handlers when named on… (a function); children
 * are nodes or text, and null/undefined are left out.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs))
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  node.append(...present(children.flat()));
  return node;
}

const present = (nodes) =>
  nodes
    .filter((n) => n !== null && n !== undefined)
    .map((n) => (n instanceof Node ? n : document.createTextNode(String(n))));

/** Replaces the contents of `parent` (null/undefined left out). */
export const fill = (parent, ...nodes) => parent.replaceChildren(...present(nodes.flat()));

/** A string of the data, written out and isolated. */
export const data = (value, attrs = {}) =>
  el('bdi', { ...attrs, class: `data ${attrs.class ?? ''}`.trim() }, visible(value));

/** A created_at, on one line. */
export const date = (seconds) => el('span', { class: 'time' }, dateText(seconds));

/** A card id, shortened to its first 12 hex digits. */
export const shortId = (id) => data(id && id.length > 12 ? `${id.slice(0, 12)}…` : (id ?? ''));
