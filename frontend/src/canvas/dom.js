// The one DOM helper the canvas panels share: build an element with attributes, listeners and
// children. Listeners are added with addEventListener (the CSP allows no inline handlers).

/**
 * Create an element: `text` sets its text, `on<event>` adds a listener, `true` gives an empty
 * attribute, and null, undefined or false leave an attribute out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {Document} doc
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node|string|null|undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(doc, tag, attrs = {}, ...children) {
  const el = doc.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) el.append(child);
  return el;
}
