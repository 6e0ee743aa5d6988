// #/ — the trial list: one card per trial (title, difficulty, summary, corpus hash).
// Data: GET api/scripts → [{id, title, difficulty, summary, version_hash, corpus_hash}].

import { api } from '../api.js';
import { el, chip, shortHash, loading, errorPanel, clear } from '../render.js';

function card(trial) {
  const titleId = `trial-${trial.id}-title`;
  return el('li', { class: 'card' },
    el('article', { 'aria-labelledby': titleId },
      el('div', { class: 'card-top' },
        chip(trial.difficulty ?? 'unrated', `difficulty-${trial.difficulty ?? 'none'}`),
        el('code', { class: 'trial-id' }, trial.id)),
      el('h2', { id: titleId, class: 'card-title' },
        el('a', { href: `#/trials/${encodeURIComponent(trial.id)}` }, trial.title)),
      el('p', { class: 'card-summary' }, trial.summary),
      el('dl', { class: 'card-meta' },
        el('div', {}, el('dt', {}, 'Corpus'), el('dd', {}, shortHash(trial.corpus_hash))),
        trial.version_hash ? el('div', {}, el('dt', {}, 'Trial'), el('dd', {}, shortHash(trial.version_hash))) : null)));
}

export async function render(ctx) {
  ctx.setTitle('Trials');
  const intro = el('section', { class: 'hero', 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title' }, 'Does your AI scribe make things up?'),
    el('p', { class: 'lede' },
      'Pick a synthetic encounter, paste what your scribe wrote, and get a deterministic report: dropped or mis-dosed medications, ',
      'missed or contradicted mental-health flags, fabricated findings and phantom drugs — validated against RxNorm.'),
    el('ol', { class: 'steps' },
      el('li', {}, el('strong', {}, 'Pick a trial'), ' below and read the encounter.'),
      el('li', {}, el('strong', {}, 'Paste'), ' your scribe’s note (SOAP, summary or JSON).'),
      el('li', {}, el('strong', {}, 'Read the report'), '; three runs put you on the ', el('a', { href: '#/leaderboard' }, 'leaderboard'), '.')));
  const list = el('div', {}, loading('trials'));
  ctx.root.append(intro, el('h2', { class: 'visually-hidden' }, 'Trials'), list);

  const load = async () => {
    clear(list).append(loading('trials'));
    try {
      const trials = await api.scripts({ signal: ctx.signal });
      trials.sort((a, b) => String(a.id).localeCompare(String(b.id)));
      clear(list).append(trials.length
        ? el('ul', { class: 'cards', 'aria-label': `${trials.length} trials` }, trials.map(card))
        : el('p', { class: 'panel' }, 'No trials are loaded. Add YAML files to corpus/scripts and restart the server.'));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      clear(list).append(errorPanel('Could not load the trials', error, load));
    }
  };
  await load();
}
