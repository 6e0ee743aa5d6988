// Any route the router does not know: say what was asked for and where to go instead.

import { el } from '../render.js';

/** Suggests the route the user probably meant, for near-misses like "#/trial/x" or "#/submission/x". */
function suggestion(path) {
  const m = /^\/(trial|trials|submission|submissions|report|reports)\/(.+)$/i.exec(path);
  if (m) {
    const kind = /^(trial)/i.test(m[1]) ? 'trials' : 'submissions';
    return `#/${kind}/${m[2]}`;
  }
  const simple = { '/leaders': '#/leaderboard', '/board': '#/leaderboard', '/rules': '#/methodology', '/methods': '#/methodology', '/trials': '#/' };
  return simple[path.toLowerCase()] ?? null;
}

export async function render(ctx) {
  const [path] = ctx.params;
  ctx.setTitle('Page not found');
  const hint = suggestion(path);
  ctx.root.append(el('div', { class: 'panel not-found' },
    el('h1', {}, 'Page not found'),
    el('p', {}, 'There is no page at ', el('code', {}, `#${path}`), '.'),
    hint ? el('p', {}, 'Did you mean ', el('a', { href: hint }, hint), '?') : null,
    el('p', {}, 'You can go to:'),
    el('ul', {},
      el('li', {}, el('a', { href: '#/' }, 'Trials'), ' — pick a synthetic encounter and grade your scribe’s note'),
      el('li', {}, el('a', { href: '#/leaderboard' }, 'Leaderboard'), ' — vendors with three or more runs, and their badges'),
      el('li', {}, el('a', { href: '#/methodology' }, 'Methodology'), ' — exactly how notes are graded')),
    el('p', { class: 'hint' }, 'A report link looks like ', el('code', {}, '#/submissions/<id>'), ' and a trial like ', el('code', {}, '#/trials/03-depression-suicidal-ideation'), '.')));
}
