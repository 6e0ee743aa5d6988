// #/trials/:id — one encounter, its instructions, and the submission form.
// Data: GET api/scripts/:id → {id, title, difficulty, summary, encounter_text, instructions, corpus_hash,
// audio: {url, sha256, bytes, duration_s, voices, content_type} | null, audio_reason, …}
// Submit: POST api/submit {script_id, vendor, scribe_output} → graded result with its `id`; the
// page then moves to #/submissions/:id. Errors are shown beside the field the API names.

import { api, ApiError, url } from '../api.js';
import { el, chip, shortHash, loading, errorPanel, clear } from '../render.js';
import { rememberNote } from './report.js';

const VENDOR_KEY = 'scribe-trials:vendor';
// What the agent is given, by the trial's kind (GET api/scripts/:id `kind`): a transcript for the
// note kinds, the FHIR bundle or the write case's context for the structured-data kinds.
const INPUT_HEADINGS = { fhir_extract: 'FHIR bundle', fhir_write: 'Note excerpt and context' };
const INPUT_LABELS = { fhir_extract: 'FHIR bundle (JSON)', fhir_write: 'Note excerpt and context' };

function storedVendor() {
  try {
    return localStorage.getItem(VENDOR_KEY) ?? '';
  } catch {
    return '';
  }
}

function storeVendor(vendor) {
  try {
    localStorage.setItem(VENDOR_KEY, vendor);
  } catch {
    // Private mode or storage disabled: the form still works, it just won't prefill.
  }
}

/** One labelled form field with its hint and an error slot the API's message goes into. */
function field({ id, label, hint, control }) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  control.id = id;
  control.setAttribute('aria-describedby', `${hintId} ${errorId}`);
  const error = el('p', { id: errorId, class: 'field-error', hidden: true });
  return {
    node: el('div', { class: 'field' }, el('label', { for: id }, label), el('p', { id: hintId, class: 'hint' }, hint), control, error),
    control,
    show(message) {
      error.textContent = message;
      error.hidden = false;
      control.setAttribute('aria-invalid', 'true');
    },
    reset() {
      error.textContent = '';
      error.hidden = true;
      control.removeAttribute('aria-invalid');
    },
  };
}

/** 191.123 → "3:11". */
function clock(seconds) {
  const s = Math.round(Number(seconds) || 0);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The frozen recording of the encounter: a player, a download link, its checksum, duration and
 * voices; or, for a trial without one, the API's reason.
 */
function recording(trial) {
  const head = el('h2', { id: 'recording-heading' }, 'Recording');
  const audio = trial.audio;
  if (!audio) {
    return el('section', { class: 'panel recording', 'aria-labelledby': 'recording-heading' }, head,
      el('p', { class: 'muted', 'data-audio-missing': '' }, `No recording: ${trial.audio_reason ?? 'none was published for this trial'}.`),
      el('p', { class: 'hint' }, 'Feed your scribe the encounter text instead.'));
  }
  const src = url(audio.url);
  const file = `${trial.id}.opus`;
  const kb = `${Math.round(audio.bytes / 1024).toLocaleString()} KB`;
  const player = el('audio', { controls: true, preload: 'metadata', src, 'aria-label': `Recording of the encounter, ${clock(audio.duration_s)}` },
    'Your browser cannot play Ogg Opus here; download the file instead.');
  return el('section', { class: 'panel recording', 'aria-labelledby': 'recording-heading' }, head,
    el('p', { class: 'hint' }, 'The same frozen audio for every vendor: give it to an ambient scribe instead of the text. ',
      'The voices are synthetic (text-to-speech), which may be easier or harder to transcribe than real speakers.'),
    player,
    el('p', {}, el('a', { href: src, download: file, class: 'button button-small' }, `Download ${file}`)),
    el('dl', { class: 'facts' },
      el('div', {}, el('dt', {}, 'File'), el('dd', {}, `Ogg Opus, ${kb}`)),
      el('div', {}, el('dt', {}, 'Duration'), el('dd', {}, `${clock(audio.duration_s)} (${Number(audio.duration_s).toFixed(1)} s)`)),
      el('div', {}, el('dt', {}, 'SHA-256'), el('dd', {}, el('code', { class: 'hash-full', 'data-audio-sha256': '' }, audio.sha256))),
      el('div', {}, el('dt', {}, 'Voices'), el('dd', {}, el('ul', { class: 'voices' },
        (audio.voices ?? []).map((v) => el('li', {}, el('strong', {}, v.speaker), ` (${v.role}): ${v.voice}`)))))),
    el('p', { class: 'hint' }, 'Check a download with ', el('code', {}, `sha256sum ${file}`), '.'));
}

function submissionForm(trial) {
  const vendor = field({
    id: 'vendor',
    label: 'Vendor name',
    hint: 'Shown on the leaderboard and in your badge URL. 1–64 characters: letters, digits, space and . _ - + ( ), starting with a letter or digit.',
    control: el('input', { type: 'text', name: 'vendor', autocomplete: 'organization', maxlength: '64', spellcheck: 'false' }),
  });
  vendor.control.value = storedVendor();
  const note = field({
    id: 'scribe_output',
    label: 'Scribe output',
    hint: 'Paste exactly what your scribe produced for this encounter: a SOAP note, a summary or structured JSON.',
    control: el('textarea', { name: 'scribe_output', rows: '14', spellcheck: 'false' }),
  });
  const count = el('p', { class: 'hint char-count', 'aria-live': 'off' }, '0 characters');
  note.control.addEventListener('input', () => {
    count.textContent = `${Array.from(note.control.value).length.toLocaleString()} characters`;
  });
  const fields = { vendor, scribe_output: note };
  const formError = el('div', { class: 'form-error', role: 'alert' });
  const button = el('button', { type: 'submit', class: 'button button-primary' }, 'Grade this note');
  const form = el('form', { class: 'submit-form', novalidate: true, 'aria-labelledby': 'submit-heading' },
    el('h2', { id: 'submit-heading' }, 'Submit your scribe’s note'),
    vendor.node, note.node, count,
    el('div', { class: 'form-actions' }, button, formError));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    Object.values(fields).forEach((f) => f.reset());
    formError.textContent = '';
    form.setAttribute('aria-busy', 'true');
    button.disabled = true;
    button.textContent = 'Grading…';
    vendor.control.readOnly = true;
    note.control.readOnly = true;
    const submission = { script_id: trial.id, vendor: vendor.control.value, scribe_output: note.control.value };
    try {
      const result = await api.submit(submission);
      storeVendor(submission.vendor);
      rememberNote(result.id, submission.scribe_output);
      location.hash = `#/submissions/${encodeURIComponent(result.id)}`;
    } catch (error) {
      const target = error instanceof ApiError && error.field ? fields[error.field] : null;
      if (target) {
        target.show(error.message);
        target.control.focus();
      } else if (error instanceof ApiError && error.status === 429) {
        formError.textContent = `Too many submissions right now: ${error.message} Wait a minute and submit again.`;
      } else {
        formError.textContent = error.message || String(error);
      }
    } finally {
      form.removeAttribute('aria-busy');
      button.disabled = false;
      button.textContent = 'Grade this note';
      vendor.control.readOnly = false;
      note.control.readOnly = false;
    }
  });
  return form;
}

export async function render(ctx) {
  const [id] = ctx.params;
  ctx.setTitle('Trial');
  ctx.root.append(loading('the trial'));
  let trial;
  try {
    trial = await api.script(id, { signal: ctx.signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    clear(ctx.root);
    if (error instanceof ApiError && error.status === 404) {
      ctx.root.append(el('div', { class: 'panel' },
        el('h1', {}, 'No such trial'),
        el('p', {}, 'There is no trial with the id ', el('code', {}, id), '. It may have been renamed in a newer corpus.'),
        el('p', {}, el('a', { href: '#/' }, 'See all trials'))));
      return;
    }
    ctx.root.append(el('h1', {}, 'Trial'), errorPanel('Could not load the trial', error, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
    return;
  }
  ctx.setTitle(trial.title);
  clear(ctx.root).append(
    el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, el('a', { href: '#/' }, 'Trials'), ' / ', el('span', { 'aria-current': 'page' }, trial.id)),
    el('header', { class: 'page-head' },
      el('h1', {}, trial.title),
      el('div', { class: 'page-meta' },
        chip(trial.difficulty ?? 'unrated', `difficulty-${trial.difficulty ?? 'none'}`),
        trial.sealed ? chip('sealed: ground truth is never revealed', 'neutral') : null,
        el('span', {}, 'corpus ', shortHash(trial.corpus_hash)))),
    el('p', { class: 'lede' }, trial.summary),
    el('div', { class: 'warning', role: 'note' },
      el('strong', {}, 'Synthetic data only. '),
      'This encounter is invented. Never paste real patient information (PHI): scribe-trials is a public benchmark, not a HIPAA-compliant tool, and submissions are stored and shown on the leaderboard.'),
    el('div', { class: 'trial-grid' },
      el('section', { class: 'panel', 'aria-labelledby': 'encounter-heading' },
        el('h2', { id: 'encounter-heading' }, INPUT_HEADINGS[trial.kind] ?? 'Encounter'),
        el('div', { class: 'encounter', tabindex: '0', role: 'region', 'aria-label': INPUT_LABELS[trial.kind] ?? 'Encounter transcript' },
          trial.encounter_text)),
      el('div', { class: 'trial-side' },
        recording(trial),
        el('section', { class: 'panel', 'aria-labelledby': 'instructions-heading' },
          el('h2', { id: 'instructions-heading' }, 'Instructions'),
          el('p', { class: 'instructions' }, trial.instructions)),
        el('section', { class: 'panel' }, submissionForm(trial)))));
}
