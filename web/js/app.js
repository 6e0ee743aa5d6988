// Entry module: the hash router.
//
// Routes (SPEC.md, "The web app"):
//   #/                  trials            pages/trials.js
//   #/trials/:id        one trial + form  pages/trial.js
//   #/submissions/:id   graded report     pages/report.js
//   #/leaderboard       vendors, badges   pages/leaderboard.js
//   #/vendors/:vendor   one vendor        pages/vendor.js
//   #/methodology       grading rules     pages/methodology.js
//   anything else       pages/notfound.js
//
// Each page module exports render(ctx) and builds its DOM into ctx.root; ctx.signal aborts when
// the user navigates away, so a slow response never paints over the next page. The URL is the
// only state: back, forward and reload all just re-render the current hash.

import { el, clear } from './render.js';
import * as trials from './pages/trials.js';
import * as trial from './pages/trial.js';
import * as report from './pages/report.js';
import * as leaderboard from './pages/leaderboard.js';
import * as methodology from './pages/methodology.js';
import * as vendor from './pages/vendor.js';
import * as notfound from './pages/notfound.js';

const ROUTES = [
  { pattern: /^\/$/, page: trials, nav: 'trials' },
  { pattern: /^\/trials\/([^/]+)$/, page: trial, nav: 'trials' },
  { pattern: /^\/submissions\/([^/]+)$/, page: report, nav: null },
  { pattern: /^\/leaderboard$/, page: leaderboard, nav: 'leaderboard' },
  { pattern: /^\/methodology$/, page: methodology, nav: 'methodology' },
  { pattern: /^\/vendors\/([^/]+)$/, page: vendor, nav: 'leaderboard' },
];

const SITE = 'scribe-trials';
const main = document.getElementById('main');
let current = null;

/** The route path of the current location: "#/trials/x" → "/trials/x"; "" → "/". */
function currentPath() {
  const raw = location.hash.replace(/^#/, '');
  if (raw === '' || raw === '/') return '/';
  return raw.startsWith('/') ? raw.replace(/\/+$/, '') || '/' : `/${raw}`;
}

function decode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function match(path) {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map(decode) };
  }
  return { route: { page: notfound, nav: null }, params: [path] };
}

function markNav(active) {
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render({ focus }) {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const path = currentPath();
  const { route, params } = match(path);
  markNav(route.nav);
  clear(main);
  main.setAttribute('aria-busy', 'true');
  // Which location this render is for: a test waiting for a route knows the page it sees is that
  // route's, not the one before a hashchange whose render has not started yet.
  main.dataset.hash = location.hash;
  const ctx = {
    root: main,
    params,
    path,
    signal: controller.signal,
    setTitle: (title) => { document.title = title ? `${title} · ${SITE}` : SITE; },
  };
  ctx.setTitle('');
  try {
    await route.page.render(ctx);
  } catch (error) {
    if (error?.name === 'AbortError' || controller.signal.aborted) return;
    clear(main).append(el('div', { class: 'panel panel-error', role: 'alert' },
      el('h1', {}, 'Something went wrong'),
      el('p', {}, error?.message || String(error)),
      el('p', {}, el('a', { href: '#/' }, 'Back to the trials'))));
  } finally {
    if (current === controller) main.removeAttribute('aria-busy');
  }
  if (controller.signal.aborted) return;
  if (focus) {
    // Move focus to the new page's heading, as a full page load would for a screen reader.
    const heading = main.querySelector('h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
    }
    window.scrollTo(0, 0);
  }
}

window.addEventListener('hashchange', () => render({ focus: true }));
// The skip link must not touch the hash (that is the router's), so it moves focus itself.
document.querySelector('[data-skip]')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
if (!location.hash) history.replaceState(null, '', '#/');
render({ focus: false });
