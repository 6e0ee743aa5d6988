// Rendering helpers shared by every page.
//
// Everything that reaches the page goes through el()/svg(): strings become text nodes, attribute
// values go through setAttribute, and nothing is ever parsed as HTML. That is the whole XSS
// defence for vendor names, notes and encounter text, so keep it that way: no innerHTML here or
// in the pages.
//
//   el('p', { class: 'hint' }, 'Vendor ', el('code', {}, name))
//   el('button', { type: 'button', onclick: () => copy() }, 'Copy')

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Appends children (strings, numbers, nodes, arrays; null/false/undefined skipped) to parent. */
export function append(parent, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

function applyAttrs(node, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (name === 'style') {
      throw new Error('inline styles are blocked by the CSP: use a class');
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  return node;
}

/** Creates an HTML element: el(tag, attrs, ...children). Text is always inserted as text. */
export function el(tag, attrs, ...children) {
  return append(applyAttrs(document.createElement(tag), attrs), ...children);
}

/** Creates an SVG element in the SVG namespace, same calling convention as el(). */
export function svg(tag, attrs, ...children) {
  return append(applyAttrs(document.createElementNS(SVG_NS, tag), attrs), ...children);
}

/** Removes every child of node. */
export function clear(node) {
  node.replaceChildren();
  return node;
}

/** 0.8532 → "85.3 %"; null → "—". */
export function pct(value, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return '—';
  return `${(Number(value) * 100).toFixed(digits)} %`;
}

/** Score → "good" | "fair" | "poor", for colouring bars and numbers. */
export function grade(value) {
  if (value >= 0.8) return 'good';
  if (value >= 0.5) return 'fair';
  return 'poor';
}

/** Long hex hash → <code> showing the first characters, the full hash in its title. */
export function shortHash(hash, length = 12) {
  if (!hash) return el('code', {}, '—');
  return el('code', { class: 'hash', title: hash }, hash.length > length ? `${hash.slice(0, length)}…` : hash);
}

/** snake_case or kebab-case identifier → "Sentence case" words. */
export function humanize(id) {
  const words = String(id ?? '').replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** ISO timestamp → local, readable date-time ('short': date only); unparseable input comes back unchanged. */
export function when(iso, style = 'medium') {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return style === 'short'
    ? date.toLocaleDateString(undefined, { dateStyle: 'medium' })
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A labelled horizontal bar for a 0–1 score. The bar is an SVG rect sized by attribute (the CSP
 * forbids style attributes); the number beside it carries the meaning for screen readers.
 */
export function scoreBar(label, value, { note, large = false } = {}) {
  const fraction = Math.max(0, Math.min(1, Number(value) || 0));
  const bar = svg('svg', { class: 'bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { class: 'bar-track', x: 0, y: 0, width: 100, height: 10, rx: 0 }),
    svg('rect', { class: `bar-fill ${grade(fraction)}`, x: 0, y: 0, width: (fraction * 100).toFixed(2), height: 10 }),
    svg('line', { class: 'bar-threshold', x1: 80, x2: 80, y1: 0, y2: 10 }));
  return el('div', { class: `score${large ? ' score-large' : ''}` },
    el('div', { class: 'score-head' },
      el('span', { class: 'score-label' }, label),
      el('span', { class: `score-value ${grade(fraction)}` }, pct(value))),
    bar,
    note ? el('div', { class: 'score-note' }, note) : null);
}

/** A small coloured label: chip('captured', 'ok'). */
export function chip(text, kind = 'neutral') {
  return el('span', { class: `chip chip-${kind}` }, text);
}

/**
 * A table inside a focusable, horizontally scrollable region. head: labels, or {label, num} for
 * right-aligned numeric columns. With stack (the default) each row becomes a small card on
 * phones: every data cell is labelled with its column (data-label, shown by the CSS).
 */
export function table({ caption, head, rows, className = '', stack = true }) {
  const columns = head.map((h) => (typeof h === 'string' ? { label: h } : h));
  for (const row of rows) {
    [...row.children].forEach((cell, i) => {
      if (cell.tagName === 'TD' && columns[i] && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', columns[i].label);
      if (columns[i]?.num) cell.classList.add('num');
    });
  }
  return el('div', { class: `table-scroll${stack ? ' stack-on-phone' : ''}`, tabindex: '0', role: 'region', 'aria-label': caption },
    el('table', { class: className || null },
      el('caption', { class: 'visually-hidden' }, caption),
      el('thead', {}, el('tr', {}, columns.map((c) => el('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
      el('tbody', {}, rows)));
}

/** Section with a heading: section('Medications', 'meds', ...children). */
export function section(title, id, ...children) {
  const headingId = `${id}-heading`;
  return el('section', { class: 'panel', id, 'aria-labelledby': headingId },
    el('h2', { id: headingId }, title), ...children);
}

/**
 * Copies text to the clipboard and reports the outcome in status (an aria-live element).
 * Falls back to selecting a hidden textarea when the async Clipboard API is refused.
 */
export async function copyText(text, status) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const area = el('textarea', { class: 'visually-hidden', readonly: true, 'aria-hidden': 'true', tabindex: '-1' });
    area.value = text;
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
  }
  if (status) {
    status.textContent = ok ? 'Copied.' : 'Copy failed: select the text and copy it by hand.';
    setTimeout(() => { status.textContent = ''; }, 2500);
  }
  return ok;
}

/** A read-only snippet with a copy button and a live status: used for embeds and permalinks. */
export function copyable(label, text, { multiline = false } = {}) {
  const status = el('span', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });
  const id = `copy-${Math.random().toString(36).slice(2, 10)}`;
  const field = multiline
    ? el('textarea', { id, class: 'snippet', readonly: true, rows: 3, spellcheck: 'false' })
    : el('input', { id, class: 'snippet', type: 'text', readonly: true, spellcheck: 'false' });
  field.value = text;
  field.addEventListener('focus', () => field.select());
  return el('div', { class: 'copyable' },
    el('label', { for: id }, label),
    el('div', { class: 'copy-row' },
      field,
      el('button', { type: 'button', class: 'button button-small', onclick: () => copyText(text, status) }, 'Copy'),
      status));
}

/**
 * Splits text at code-point offsets and wraps each span in a <mark>, built with DOM APIs.
 * spans: [{start, end, className, title, id}] — overlapping spans are resolved by order of
 * priority: the first span given wins, later ones that overlap it are dropped.
 * Offsets are Unicode code points (the grader's unit), so the text is sliced as an array of them.
 */
export function highlight(text, spans) {
  const points = Array.from(text ?? '');
  const accepted = [];
  for (const span of spans) {
    const start = Math.max(0, Math.min(points.length, span.start));
    const end = Math.max(start, Math.min(points.length, span.end));
    if (end === start) continue;
    if (accepted.some((a) => start < a.end && a.start < end)) continue;
    accepted.push({ ...span, start, end });
  }
  accepted.sort((a, b) => a.start - b.start);
  const fragment = document.createDocumentFragment();
  let cursor = 0;
  for (const span of accepted) {
    if (span.start > cursor) fragment.append(points.slice(cursor, span.start).join(''));
    fragment.append(el('mark', { class: span.className, title: span.title, id: span.id }, points.slice(span.start, span.end).join('')));
    cursor = span.end;
  }
  if (cursor < points.length) fragment.append(points.slice(cursor).join(''));
  return { fragment, marked: accepted };
}

/** Loading placeholder, announced politely. */
export function loading(what) {
  return el('p', { class: 'loading', role: 'status' }, `Loading ${what}…`);
}

/** An error panel for a failed load, with a retry action. */
export function errorPanel(title, error, retry) {
  return el('div', { class: 'panel panel-error', role: 'alert' },
    el('h2', {}, title),
    el('p', {}, error?.message || String(error)),
    retry ? el('p', {}, el('button', { type: 'button', class: 'button', onclick: retry }, 'Try again')) : null);
}
