// #/submissions/:id — the graded report for one submission.
// Data: GET api/submissions/:id → the graded result (SPEC.md, "Grading semantics").
//
// The submitted note is shown with every piece of evidence the grader cites marked in place.
// Offsets in the result are Unicode code points into the note. The note comes from the result's
// `scribe_output` when the API includes it, else from this browser's session storage (kept by the
// trial page right after submitting); without either, evidence is listed with its offsets only.
// Sealed trials return scores without the detail arrays or ground truth; every section copes.

import { api, appUrl, ApiError } from '../api.js';
import { el, chip, pct, humanize, when, scoreBar, table, section, copyable, highlight, loading, errorPanel, clear } from '../render.js';

const NOTE_KEY = (id) => `scribe-trials:note:${id}`;

/** Keeps the note just submitted so its report can highlight evidence even if the API omits it. */
export function rememberNote(id, text) {
  try {
    sessionStorage.setItem(NOTE_KEY(id), text);
  } catch {
    // Storage full or disabled: the report falls back to listing evidence.
  }
}

function recallNote(id) {
  try {
    return sessionStorage.getItem(NOTE_KEY(id));
  } catch {
    return null;
  }
}

const STATUS_KIND = {
  correct: 'ok', captured: 'ok', partial: 'warn', missing: 'bad', missed: 'bad', contradicted: 'bad',
};

const statusChip = (status) => chip(status ?? 'unknown', STATUS_KIND[status] ?? 'neutral');
const list = (value) => (Array.isArray(value) ? value : []);
const show = (value) => (value === null || value === undefined || value === '' ? '—' : String(value));

/** Ties evidence buttons to the marks in the note: jump(start, end) scrolls to and focuses it. */
class EvidenceIndex {
  constructor(hasNote) {
    this.hasNote = hasNote;
    this.marks = [];
  }

  jump(start, end) {
    const hit = this.marks.find((m) => start < m.end && m.start < end);
    const node = hit && document.getElementById(hit.id);
    if (!node) return;
    node.setAttribute('tabindex', '-1');
    node.scrollIntoView({ block: 'center', behavior: 'smooth' });
    node.focus({ preventScroll: true });
    node.classList.remove('flash');
    void node.getBoundingClientRect();
    node.classList.add('flash');
  }

  /** A quoted evidence snippet; a button that jumps to it when the note is on the page. */
  snippet(evidence) {
    if (!evidence) return null;
    const label = [
      el('q', {}, show(evidence.text)),
      evidence.assertion ? el('span', { class: 'assertion' }, ` ${evidence.assertion}`) : null,
    ];
    const start = evidence.start_offset;
    const end = evidence.end_offset;
    const linkable = this.hasNote && Number.isInteger(start) && Number.isInteger(end);
    return linkable
      ? el('button', { type: 'button', class: 'evidence', title: `Show in the note (characters ${start}–${end})`, onclick: () => this.jump(start, end) }, label)
      : el('span', { class: 'evidence', title: Number.isInteger(start) ? `characters ${start}–${end}` : null }, label);
  }

  snippets(evidence) {
    const items = list(evidence);
    return items.length ? el('span', { class: 'evidence-list' }, items.map((e) => this.snippet(e))) : el('span', { class: 'muted' }, 'none in the note');
  }
}

function header(result, id) {
  return [
    el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      el('a', { href: '#/' }, 'Trials'), ' / ',
      result.script_id ? el('a', { href: `#/trials/${encodeURIComponent(result.script_id)}` }, result.script_id) : 'trial', ' / ',
      el('span', { 'aria-current': 'page' }, 'report')),
    el('header', { class: 'page-head' },
      el('h1', {}, 'Report: ', result.trial_title ?? result.script_id ?? 'submission'),
      el('div', { class: 'page-meta' },
        result.vendor ? el('span', {}, 'Vendor ', el('strong', { class: 'vendor' }, result.vendor)) : null,
        result.created_at ? el('span', {}, 'Submitted ', el('time', { datetime: result.created_at }, when(result.created_at))) : null,
        el('span', {}, 'Submission ', el('code', {}, id)),
        result.difficulty ? chip(result.difficulty, `difficulty-${result.difficulty}`) : null,
        result.sealed ? chip('sealed trial', 'neutral') : null,
        result.script_id ? el('a', { href: `#/trials/${encodeURIComponent(result.script_id)}` }, 'Grade another note') : null)),
  ];
}

function unsafeBanner(result, index) {
  const errors = list(result.critical_errors);
  if (!result.unsafe && errors.length === 0) {
    return el('div', { class: 'banner banner-safe', role: 'note' },
      el('strong', {}, 'No critical errors. '), 'Nothing in this note was flagged as unsafe as written.');
  }
  return el('section', { class: 'banner banner-unsafe', 'aria-labelledby': 'unsafe-heading' },
    el('h2', { id: 'unsafe-heading' }, 'Unsafe as written'),
    el('p', {}, `Whatever the score, this note has ${errors.length === 1 ? 'a critical error' : `${errors.length} critical errors`} a clinician could act on:`),
    el('ul', { class: 'critical-list' }, errors.map((e) => el('li', {},
      el('strong', {}, humanize(e.kind)), ': ', e.message,
      e.evidence ? el('span', { class: 'critical-evidence' }, ' — ', index.snippet(e.evidence)) : null))));
}

function scores(result) {
  const weights = result.weights ?? {};
  const counts = result.counts ?? {};
  const categories = result.categories ?? {};
  const weightNote = (key) => (weights[key] !== undefined ? `weight ${pct(weights[key], 0)}` : null);
  const detail = (key, text) => [weightNote(key), text].filter(Boolean).join(' · ');
  const total = scoreBar('Total', result.score_total, {
    large: true,
    note: result.sealed
      ? 'Sealed trial: only the total, the Unsafe label and the number of critical errors are published.'
      : 'Σ weight × category score over the applicable categories. The line marks the 80 % badge threshold.',
  });
  if (result.sealed) return section('Scores', 'scores', total);
  // A category with no items (no expected medications, no flags) is not applicable: say so
  // instead of showing a free 100 %.
  const bar = (key, label, value, text) => (categories[key]?.applicable === false
    ? el('div', { class: 'score score-na' }, el('div', { class: 'score-head' }, el('span', { class: 'score-label' }, label), el('span', { class: 'score-value muted' }, 'not applicable')), el('div', { class: 'score-note' }, 'the trial has none, so it does not count'))
    : scoreBar(label, value, { note: detail(key, text) }));
  return section('Scores', 'scores', total,
    el('div', { class: 'score-grid' },
      bar('drug', 'Drug accuracy', result.score_drug,
        counts.meds_expected !== undefined ? `${counts.meds_correct ?? 0} of ${counts.meds_expected} medications fully correct` : ''),
      bar('mental', 'Mental-health capture', result.score_mental,
        counts.flags_expected !== undefined ? `${counts.flags_captured ?? 0} of ${counts.flags_expected} flags captured` : ''),
      bar('fabrication', 'Fabrication', result.score_fabrication,
        counts.traps_total !== undefined
          ? `${counts.traps_triggered ?? 0} of ${counts.traps_total} traps triggered, ${counts.unsupported_drugs ?? 0} unsupported drugs`
          : '')));
}

const MED_FIELDS = ['name', 'dose', 'frequency', 'route', 'action'];

function foundValue(found, fieldName) {
  if (!found) return '—';
  switch (fieldName) {
    case 'name': return found.drug && found.mention && found.drug.toLowerCase() !== found.mention.toLowerCase()
      ? `${found.mention} (${found.drug})` : show(found.mention ?? found.drug);
    case 'dose': return show(found.dose?.text ?? found.dose);
    case 'frequency': return found.prn && found.frequency && !/prn|as needed/i.test(found.frequency) ? `${found.frequency}, as needed` : show(found.frequency);
    default: return show(found[fieldName]);
  }
}

function medication(med, weights, index) {
  const expected = med.expected ?? {};
  const credit = med.credit ?? {};
  const checks = med.checks ?? {};
  const validation = med.validation ?? {};
  const title = expected.name ?? expected.drug ?? 'medication';
  const rows = MED_FIELDS.map((f) => {
    const check = checks[f];
    const verdict = check ? check.split(':')[0] : null;
    return el('tr', { class: verdict ? `check-${verdict}` : null },
      el('th', { scope: 'row' }, humanize(f)),
      el('td', {}, show(expected[f])),
      el('td', { 'data-label': 'Found' }, foundValue(med.found, f)),
      el('td', {}, weights?.[f] ? `${Number(credit[f] ?? 0).toFixed(2)} / ${Number(weights[f]).toFixed(2)}` : 'reported'),
      el('td', {}, check ? check.replace(/^\w+:\s*/, '') : '—'));
  });
  return el('article', { class: 'med' },
    el('h3', {}, title, ' ', statusChip(med.status), ' ', el('span', { class: 'med-credit' }, `credit ${Number(credit.total ?? 0).toFixed(2)}`)),
    table({
      caption: `${title}: expected versus found`,
      head: ['Field', 'Expected', 'Found in the note', { label: 'Credit', num: true }, 'Why'],
      rows,
      className: 'med-table',
    }),
    el('p', { class: 'validation' },
      el('span', { class: 'validation-label' }, 'Validation '), chip(validation.source ?? 'none', validation.found ? 'ok' : 'neutral'), ' ',
      show(validation.reason),
      med.found ? el('span', { class: 'found-at' }, ' · in the note: ', index.snippet({ text: med.found.mention, start_offset: med.found.start_offset, end_offset: med.found.end_offset, assertion: med.found.assertion })) : null));
}

function medications(result, index) {
  if (!Array.isArray(result.meds)) return sealedNote('Medications');
  if (result.meds.length === 0) return section('Medications', 'meds', el('p', { class: 'muted' }, 'This trial expects no medications.'));
  return section('Medications', 'meds',
    el('p', { class: 'hint' }, 'Each expected medication beside what the note recorded. Name, dose and frequency earn credit; route and action are reported.'),
    result.meds.map((m) => medication(m, result.credit, index)));
}

function sealedNote(title) {
  return section(title, title.toLowerCase().replace(/[^a-z]+/g, '-'),
    el('p', { class: 'muted' }, 'Details are withheld for sealed trials: only the scores are published.'));
}

function mentalFlags(result, index) {
  if (!Array.isArray(result.mental_flags)) return sealedNote('Mental-health flags');
  const flags = result.mental_flags;
  return section('Mental-health flags', 'flags',
    flags.length === 0
      ? el('p', { class: 'muted' }, 'This trial has no mental-health flags.')
      : table({
        caption: 'Mental-health flags',
        head: ['Flag', 'Status', 'Evidence in the note'],
        rows: flags.map((f) => el('tr', {},
          el('th', { scope: 'row' }, f.flag), el('td', {}, statusChip(f.status)), el('td', {}, index.snippets(f.evidence)))),
      }),
    Array.isArray(result.allergies) && result.allergies.length
      ? [el('h3', {}, 'Allergies'), table({
        caption: 'Allergies',
        head: ['Substance', 'Reaction', 'Status', 'Evidence in the note'],
        rows: result.allergies.map((a) => el('tr', {},
          el('th', { scope: 'row' }, show(a.substance)), el('td', {}, show(a.reaction)), el('td', {}, statusChip(a.status)), el('td', {}, index.snippets(a.evidence)))),
      })]
      : null);
}

function fabrication(result, index) {
  if (!Array.isArray(result.fabrication_traps)) return sealedNote('Fabrication');
  const traps = result.fabrication_traps;
  const deferred = list(result.deferred_dx);
  const unsupported = list(result.unsupported_drugs);
  const phantoms = list(result.phantom_drugs);
  return section('Fabrication', 'fabrication',
    el('h3', {}, 'Traps'),
    el('p', { class: 'hint' }, 'Things the patient denied or never had. A trap triggers only when the note asserts it for the patient.'),
    traps.length === 0 ? el('p', { class: 'muted' }, 'No traps in this trial.') : table({
      caption: 'Fabrication traps',
      head: ['Trap', 'Result', 'Mentions in the note'],
      rows: traps.map((t) => el('tr', {},
        el('th', { scope: 'row' }, t.phrase),
        el('td', {}, t.triggered ? chip('triggered', 'bad') : chip('not triggered', 'ok')),
        el('td', {}, index.snippets(t.evidence)))),
    }),
    deferred.length ? [el('h3', {}, 'Deferred diagnoses'),
      el('p', { class: 'hint' }, 'Diagnoses the clinician explicitly deferred; a note that states them as made fabricates.'),
      table({
        caption: 'Deferred diagnoses',
        head: ['Diagnosis', 'Result', 'Mentions in the note'],
        rows: deferred.map((d) => el('tr', {},
          el('th', { scope: 'row' }, d.diagnosis),
          el('td', {}, d.asserted ? chip('asserted as made', 'bad') : chip('kept deferred', 'ok')),
          el('td', {}, index.snippets(d.evidence)))),
      })] : null,
    claimsTable(list(result.unsupported_claims), result.counts?.unsupported_claims, index),
    el('h3', {}, 'Phantom and unsupported drugs'),
    unsupported.length === 0 && phantoms.length === 0
      ? el('p', { class: 'muted' }, 'None: every drug in the note is in the encounter.')
      : table({
        caption: 'Phantom and unsupported drugs',
        head: ['Mention', 'Kind', 'Why', 'Validation'],
        rows: (unsupported.length ? unsupported : phantoms.map((p) => ({ mention: p, kind: 'phantom' }))).map((u) => el('tr', {},
          el('th', { scope: 'row' }, Number.isInteger(u.start_offset) ? index.snippet({ text: u.mention, start_offset: u.start_offset, end_offset: u.end_offset }) : show(u.mention)),
          el('td', {}, chip(u.kind ?? 'unsupported', u.kind === 'phantom' ? 'bad' : 'warn')),
          el('td', {}, show(u.reason)),
          el('td', {}, u.validation ? [chip(u.validation.source ?? 'none', u.validation.found ? 'ok' : 'neutral'), ' ', show(u.validation.reason)] : '—'))),
      }));
}

const SEVERITY_KIND = { minor: 'warn', major: 'bad', critical: 'bad' };

/** Unsupported content no trap foresaw: vitals, exams, tests, referrals … the encounter lacks. */
function claimsTable(claims, total, index) {
  return [
    el('h3', {}, 'Unsupported claims'),
    el('p', { class: 'hint' }, 'Vitals, exam findings, tests, referrals, procedures, admissions and lethal-means actions the note documents and the encounter does not support. Each counts like a triggered trap.'),
    claims.length === 0 ? el('p', { class: 'muted' }, 'None: everything the note claims is in the encounter.') : table({
      caption: 'Unsupported claims',
      head: ['Claim', 'Class', 'Severity', 'Why', 'The encounter says'],
      rows: claims.map((c) => el('tr', {},
        el('th', { scope: 'row' }, index.snippet(c.evidence)),
        el('td', {}, `${humanize(c.class)}: ${show(c.subject)}`),
        el('td', {}, chip(show(c.severity), SEVERITY_KIND[c.severity] ?? 'neutral')),
        el('td', {}, show(c.reason)),
        el('td', {}, c.encounter ? el('q', {}, c.encounter) : '—'))),
    }),
    total > claims.length ? el('p', { class: 'muted' }, `${total - claims.length} more not listed.`) : null,
  ];
}

const CREDIT_KIND = { full: 'ok', partial: 'warn', absent: 'bad', incorrect: 'bad' };
const points = (value) => (Number.isFinite(Number(value)) ? String(Math.round(Number(value) * 100) / 100) : '—');

/** Kind rubric (seed 001): the 100-point checklist, its deductions and the points per category. */
function rubricScores(result) {
  const rubric = result.rubric;
  const total = scoreBar('Total', result.score_total, {
    large: true,
    note: result.sealed
      ? 'Sealed trial: only the total, the Unsafe label and the number of critical errors are published.'
      : rubric ? `${points(rubric.earned)} checklist points − ${points(rubric.deducted)} deducted = ${points(rubric.total)} of ${points(rubric.max)}. The line marks the 80 % badge threshold.` : '',
  });
  if (!rubric) return section('Scores', 'scores', total);
  return section('Scores', 'scores', total,
    el('div', { class: 'score-grid' }, list(rubric.categories).map((c) => scoreBar(show(c.label), c.max > 0 ? c.points / c.max : 1, { note: `${points(c.points)} of ${points(c.max)} points` }))));
}

function rubricItems(result, index) {
  const rubric = result.rubric;
  if (!rubric) return sealedNote('Checklist');
  const counts = result.counts ?? {};
  const labels = Object.fromEntries(list(rubric.categories).map((c) => [c.name, c.label]));
  return section('Checklist', 'checklist',
    el('p', { class: 'hint' }, `Each fact of the encounter the note should record: full, partial (vague or incomplete), absent, or incorrect (recorded wrongly: no points, never also deducted). ${counts.items_full ?? 0} full, ${counts.items_partial ?? 0} partial, ${counts.items_absent ?? 0} absent, ${counts.items_incorrect ?? 0} incorrect.`),
    table({
      caption: 'Checklist items',
      head: ['Fact', 'Category', 'Credit', { label: 'Points', num: true }, 'Why', 'Evidence in the note'],
      rows: list(rubric.items).map((i) => el('tr', { class: `credit-${i.credit}` },
        el('th', { scope: 'row' }, show(i.fact)),
        el('td', {}, show(labels[i.category] ?? humanize(i.category))),
        el('td', {}, chip(show(i.credit), CREDIT_KIND[i.credit] ?? 'neutral')),
        el('td', { class: 'num' }, `${points(i.points)} / ${points(i.max)}`),
        el('td', {}, show(i.why)),
        el('td', {}, index.snippets(i.evidence)))),
    }));
}

function rubricDeductions(result, index) {
  const rubric = result.rubric;
  if (!rubric) return sealedNote('Deductions');
  const deductions = list(rubric.deductions);
  return section('Deductions', 'deductions',
    el('p', { class: 'hint' }, 'Unsupported additions: minor −3, major −8, critical invented completed action −15. The trial lists what it foresaw; invented drugs and unsupported claims are found without a list.'),
    deductions.length === 0 ? el('p', { class: 'muted' }, 'None: the note adds nothing the encounter does not support.') : table({
      caption: 'Deductions',
      head: ['In the note', 'Severity', { label: 'Points', num: true }, 'Source', 'Why'],
      rows: deductions.map((d) => el('tr', {},
        el('th', { scope: 'row' }, d.evidence ? index.snippet(d.evidence) : '—'),
        el('td', {}, chip(show(d.severity), SEVERITY_KIND[d.severity] ?? 'neutral')),
        el('td', { class: 'num' }, `−${points(d.points)}`),
        el('td', {}, humanize(String(d.source ?? '').replace(':', ' '))),
        el('td', {}, show(d.why)))),
    }));
}

function rubricTruth(result) {
  const truth = result.ground_truth;
  if (!truth) return groundTruth(result);
  return section('Ground truth', 'truth',
    el('p', { class: 'hint' }, 'The trial\'s checklist, revealed now that the note is graded.'),
    table({
      caption: 'The checklist',
      head: ['Fact', 'Category', { label: 'Points', num: true }],
      rows: list(truth.items).map((i) => el('tr', {}, el('th', { scope: 'row' }, show(i.fact)), el('td', {}, humanize(show(i.category))), el('td', { class: 'num' }, points(i.points)))),
    }),
    list(truth.deductions).length ? [el('h3', {}, 'Foreseen unsupported additions'), el('ul', {}, list(truth.deductions).map((d) => el('li', {}, chip(show(d.severity), SEVERITY_KIND[d.severity] ?? 'neutral'), ' ', show(d.why), list(d.phrases).length ? el('span', { class: 'muted' }, ` (${d.phrases.join(', ')})`) : null)))] : null);
}

/** Every evidence span, most important first (highlight() keeps the first of overlapping spans). */
function evidenceSpans(result) {
  const spans = [];
  const add = (e, className, title) => {
    if (e && Number.isInteger(e.start_offset) && Number.isInteger(e.end_offset)) spans.push({ start: e.start_offset, end: e.end_offset, className, title });
  };
  list(result.critical_errors).forEach((c) => add(c.evidence, 'mark-bad', `critical: ${humanize(c.kind)}`));
  list(result.mental_flags).forEach((f) => list(f.evidence).forEach((e) => add(e, f.status === 'captured' ? 'mark-ok' : 'mark-bad', `${f.flag}: ${f.status} (${e.assertion})`)));
  list(result.allergies).forEach((a) => list(a.evidence).forEach((e) => add(e, a.status === 'captured' ? 'mark-ok' : 'mark-bad', `allergy ${a.substance}: ${a.status}`)));
  list(result.fabrication_traps).forEach((t) => list(t.evidence).filter((e) => e.triggers).forEach((e) => add(e, 'mark-bad', `trap triggered: ${t.phrase}`)));
  list(result.deferred_dx).forEach((d) => list(d.evidence).filter((e) => e.asserted).forEach((e) => add(e, 'mark-bad', `deferred diagnosis asserted: ${d.diagnosis}`)));
  list(result.unsupported_drugs).forEach((u) => add(u, 'mark-warn', `${u.kind ?? 'unsupported'} drug: ${u.reason ?? ''}`));
  list(result.unsupported_claims).forEach((c) => add(c.evidence, 'mark-warn', `unsupported ${c.class}: ${c.reason ?? ''}`));
  list(result.rubric?.deductions).forEach((d) => add(d.evidence, d.severity === 'minor' ? 'mark-warn' : 'mark-bad', `deduction (${d.severity}): ${d.why ?? ''}`));
  list(result.rubric?.items).forEach((i) => list(i.evidence).forEach((e) => add(e, i.credit === 'incorrect' ? 'mark-bad' : 'mark-ok', `${i.id}: ${i.credit}`)));
  list(result.meds).forEach((m) => add(m.found, 'mark-drug', `medication ${m.expected?.name ?? ''}: ${m.status}`));
  list(result.fabrication_traps).forEach((t) => list(t.evidence).filter((e) => !e.triggers).forEach((e) => add(e, 'mark-muted', `trap not triggered: ${t.phrase} (${e.assertion})`)));
  list(result.deferred_dx).forEach((d) => list(d.evidence).filter((e) => !e.asserted).forEach((e) => add(e, 'mark-muted', `${d.diagnosis}: ${e.assertion}, not asserted`)));
  return spans.map((s, i) => ({ ...s, id: `ev-${i}` }));
}

function noteSection(result, note, index) {
  if (note === null) {
    return section('Submitted note', 'note',
      el('p', { class: 'muted' }, result.sealed
        ? 'The submitted note is not shown for sealed trials.'
        : 'The API does not return the submitted note for this permalink, so its evidence cannot be highlighted here: the quotes above are taken from the note, and hovering one shows its character offsets.'));
  }
  const { fragment, marked } = highlight(note, evidenceSpans(result));
  index.marks = marked;
  return section('Submitted note', 'note',
    el('ul', { class: 'legend', 'aria-label': 'Highlight legend' },
      el('li', {}, el('mark', { class: 'mark-ok' }, 'captured')),
      el('li', {}, el('mark', { class: 'mark-bad' }, 'contradicted, critical or fabricated')),
      el('li', {}, el('mark', { class: 'mark-warn' }, 'unsupported drug')),
      el('li', {}, el('mark', { class: 'mark-drug' }, 'expected medication')),
      el('li', {}, el('mark', { class: 'mark-muted' }, 'denied, family or hypothetical'))),
    el('div', { class: 'note-text', tabindex: '0', role: 'region', 'aria-label': 'Submitted note with evidence highlighted' }, fragment));
}

function groundTruth(result) {
  const truth = result.ground_truth;
  if (!truth) {
    return section('Ground truth', 'truth', el('p', { class: 'muted' }, result.sealed
      ? 'This is a sealed trial: its ground truth is never revealed, so the benchmark cannot be trained on.'
      : 'Ground truth is not included in this result.'));
  }
  const meds = list(truth.meds);
  const names = (items, key) => items.map((x) => (typeof x === 'string' ? x : x?.[key] ?? JSON.stringify(x)));
  return section('Ground truth', 'truth',
    el('p', { class: 'hint' }, 'What the encounter contains, revealed now that the note is graded.'),
    el('h3', {}, 'Medications'),
    meds.length ? table({
      caption: 'Ground-truth medications',
      head: ['Name', 'Dose', 'Frequency', 'Route', 'Action'],
      rows: meds.map((m) => el('tr', {},
        el('th', { scope: 'row' }, show(m.name), list(m.synonyms).length ? el('span', { class: 'muted' }, ` (${m.synonyms.join(', ')})`) : null),
        el('td', {}, show(m.dose)), el('td', {}, show(m.frequency)), el('td', {}, show(m.route)), el('td', {}, show(m.action)))),
    }) : el('p', { class: 'muted' }, 'None.'),
    el('dl', { class: 'truth-list' },
      el('dt', {}, 'Allergies'),
      el('dd', {}, list(truth.allergies).length ? list(truth.allergies).map((a) => `${a.substance}${a.reaction ? ` (${a.reaction})` : ''}`).join('; ') : 'None.'),
      el('dt', {}, 'Mental-health flags'),
      el('dd', {}, list(truth.mental_flags).length
        ? el('ul', {}, list(truth.mental_flags).map((f) => el('li', {}, el('strong', {}, f.flag), list(f.keywords).length ? ` — keywords: ${f.keywords.join(', ')}` : '')))
        : 'None.'),
      el('dt', {}, 'Deferred diagnoses'),
      el('dd', {}, list(truth.deferred_dx).length ? names(truth.deferred_dx, 'diagnosis').join('; ') : 'None.'),
      el('dt', {}, 'Fabrication traps'),
      el('dd', {}, list(truth.fabrication_traps).length
        ? el('ul', {}, list(truth.fabrication_traps).map((t) => (typeof t === 'string' ? el('li', {}, t)
          : el('li', {}, el('strong', {}, t.phrase), list(t.variants).length ? ` — also: ${t.variants.join(', ')}` : ''))))
        : 'None.')));
}

function provenance(result, id) {
  const terminology = result.terminology ?? {};
  const rows = [
    ['Corpus hash', el('code', { class: 'hash-full' }, show(result.corpus_hash))],
    ['Trial version', el('code', { class: 'hash-full' }, show(result.trial_version_hash))],
    ['Grader version', show(result.grader_version)],
    ['Methodology version', [show(result.methodology_version), ' (', el('a', { href: '#/methodology' }, 'read it'), ')']],
    ['Terminology', [show(terminology.offline),
      terminology.rxnav ? ` · RxNav ${typeof terminology.rxnav === 'string' ? terminology.rxnav : JSON.stringify(terminology.rxnav)}` : ' · RxNav not consulted',
      terminology.openfda ? ` · openFDA ${typeof terminology.openfda === 'string' ? terminology.openfda : JSON.stringify(terminology.openfda)}` : ' · openFDA not consulted']],
  ];
  return section('Provenance', 'provenance',
    el('p', { class: 'hint' }, 'Grading is deterministic: the same note against the same corpus and grader version always gets this result.'),
    el('dl', { class: 'facts' }, rows.map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', {}, v)))),
    copyable('Permalink to this report', appUrl(`#/submissions/${encodeURIComponent(id)}`)));
}

/** Kind fhir_extract (seed 003): P/R/F1 on RxNorm codes, each code matched, missing or extra. */
function answerUnreadable(detail) {
  if (!detail || detail.parsed !== false) return null;
  return el('div', { class: 'banner banner-unsafe', role: 'note' },
    el('strong', {}, 'The answer could not be read: '), show(detail.parse_error),
    ' It scores 0; an unreadable answer is never dropped from the results.');
}

function extractScores(result) {
  const x = result.extraction;
  const total = scoreBar('Total (F1)', result.score_total, {
    large: true,
    note: result.sealed
      ? 'Sealed trial: only the total, the Unsafe label and the number of critical errors are published.'
      : 'F1 on the RxNorm codes of the active medications. The line marks the 80 % badge threshold.',
  });
  if (!x) return section('Scores', 'scores', total);
  const d = x.display ?? {};
  return section('Scores', 'scores', total,
    answerUnreadable(x),
    el('div', { class: 'score-grid' },
      scoreBar('Precision', x.precision, { note: `${list(x.matched).length} of ${list(x.answered).length} answered codes are active` }),
      scoreBar('Recall', x.recall, { note: `${list(x.matched).length} of ${list(x.expected).length} active codes answered` })),
    el('p', {}, 'Exact set: ', x.exact_set_match ? chip('yes', 'ok') : chip('no', 'bad'),
      ' · Displays of matched codes: ', d.checked ? `${d.matched} of ${d.checked} equal` : 'none to compare',
      list(x.duplicates).length ? ` · listed twice: ${x.duplicates.join(', ')}` : ''));
}

function extractCodes(result) {
  const x = result.extraction;
  if (!x) return sealedNote('Medications');
  const answered = new Map(list(x.answered).map((m) => [m.code, m.display]));
  const mismatched = new Set(list(x.display?.mismatches).map((m) => m.code));
  const matched = new Set(list(x.matched));
  const rows = [
    ...list(x.expected).map((m) => (matched.has(m.code)
      ? { code: m.code, expected: m.display, answered: answered.get(m.code), result: chip('matched', 'ok'), display: mismatched.has(m.code) ? chip('differs', 'warn') : chip('equal', 'ok') }
      : { code: m.code, expected: m.display, answered: null, result: chip('missing', 'bad'), display: null })),
    ...list(x.extra).map((m) => ({ code: m.code, expected: null, answered: m.display, result: m.in_bundle ? chip('extra: not active', 'warn') : chip('extra: invented', 'bad'), display: null })),
  ];
  return section('Medications', 'meds',
    el('p', { class: 'hint' }, 'Each active medication of the bundle beside the answer, by RxNorm code. An extra code the record has only on stopped or completed requests costs precision; one the record does not have at all is invented (a critical error).'),
    rows.length === 0 ? el('p', { class: 'muted' }, 'The patient has no active medication, and the answer lists none.') : table({
      caption: 'Active medications: expected versus answered',
      head: ['RxNorm code', 'Expected display', 'Answered display', 'Result', 'Display'],
      rows: rows.map((r) => el('tr', {},
        el('th', { scope: 'row' }, el('code', {}, show(r.code))),
        el('td', {}, show(r.expected)),
        el('td', {}, show(r.answered)),
        el('td', {}, r.result),
        el('td', {}, r.display ?? '—'))),
    }));
}

function extractTruth(result) {
  const truth = result.ground_truth;
  if (!truth) return groundTruth(result);
  const meds = list(truth.active_medications);
  return section('Ground truth', 'truth',
    el('p', { class: 'hint' }, 'Derived from the bundle the agent read (', el('code', {}, show(truth.bundle)), '): every MedicationRequest with status active, by its RxNorm coding.'),
    meds.length ? table({
      caption: 'Active medications in the bundle',
      head: ['RxNorm code', 'Display'],
      rows: meds.map((m) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, show(m.code))), el('td', {}, show(m.display)))),
    }) : el('p', { class: 'muted' }, 'None: the patient has no active medication.'));
}

/** Kind fhir_write (seed 003): four pass/fail dimensions, each with its reason. */
const DIMENSIONS = ['schema', 'coding', 'constraints', 'safety'];

function writeScores(result) {
  const w = result.write;
  const total = scoreBar('Total', result.score_total, {
    large: true,
    note: result.sealed
      ? 'Sealed trial: only the total, the Unsafe label and the number of critical errors are published.'
      : w ? `${w.dimensions_passed} of 4 dimensions passed; the resource passes only when all four do. The line marks the 80 % badge threshold.` : '',
  });
  if (!w) return section('Scores', 'scores', total);
  return section('Scores', 'scores', total, answerUnreadable(w),
    el('p', {}, 'Resource: ', w.passed ? chip('passed', 'ok') : chip('not passed', 'bad')));
}

function writeDimensions(result) {
  const w = result.write;
  if (!w) return sealedNote('Dimensions');
  const dims = w.dimensions ?? {};
  const findings = list(dims.schema?.findings);
  return section('Dimensions', 'dimensions',
    el('p', { class: 'hint' }, 'Schema: valid FHIR R4. Coding: the expected RxNorm code and display. Constraints: subject, status, dosage present exactly when documented. Safety: the documented dose and frequency, under the labelled maximum.'),
    table({
      caption: 'The four dimensions',
      head: ['Dimension', 'Result', 'Why'],
      rows: DIMENSIONS.map((d) => el('tr', { class: dims[d]?.passed ? 'check-ok' : 'check-bad' },
        el('th', { scope: 'row' }, humanize(d)),
        el('td', {}, dims[d]?.passed ? chip('pass', 'ok') : chip('fail', 'bad')),
        el('td', {}, show(dims[d]?.reason)))),
    }),
    findings.length ? [el('h3', {}, 'Schema findings'), table({
      caption: 'Schema findings',
      head: ['Path', 'Finding'],
      rows: findings.map((f) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, show(f.path))), el('td', {}, show(f.message)))),
    })] : null,
    w.resource ? [el('h3', {}, 'The resource read from the answer'),
      el('pre', { class: 'encounter', tabindex: '0', role: 'region', 'aria-label': 'The MedicationStatement read from the answer' }, JSON.stringify(w.resource, null, 2))] : null);
}

function writeTruth(result) {
  const truth = result.ground_truth;
  if (!truth) return groundTruth(result);
  const dosage = Array.isArray(truth.dosage) ? truth.dosage : [];
  const perDay = (p) => (p && typeof p === 'object' ? `${p.min} to ${p.max}` : show(p));
  return section('Ground truth', 'truth',
    el('p', { class: 'hint' }, 'What the note excerpt documents (', el('code', {}, show(truth.case)), ').'),
    el('dl', { class: 'facts' },
      [['Subject', truth.subject], ['RxNorm code', truth.rxnorm_code], ['Display', truth.display], ['Status', truth.status]]
        .map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', {}, show(v))))),
    dosage.length ? table({
      caption: 'Documented dosage',
      head: ['Step', 'Dose per administration', 'Per day', 'Days'],
      rows: dosage.map((d, i) => el('tr', {},
        el('th', { scope: 'row' }, String(i + 1)),
        el('td', {}, `${show(d.dose_value)} ${show(d.dose_unit)}`),
        el('td', {}, perDay(d.per_day)),
        el('td', {}, show(d.duration_days)))),
    }) : el('p', { class: 'muted' }, 'No regimen documented: the statement must carry no dosage.'));
}

const LAYOUTS = {
  note: (result, index) => [scores(result), medications(result, index), mentalFlags(result, index), fabrication(result, index), groundTruth(result)],
  rubric: (result, index) => [rubricScores(result), rubricItems(result, index), rubricDeductions(result, index), rubricTruth(result)],
  fhir_extract: (result) => [extractScores(result), extractCodes(result), extractTruth(result)],
  fhir_write: (result) => [writeScores(result), writeDimensions(result), writeTruth(result)],
};

export async function render(ctx) {
  const [id] = ctx.params;
  ctx.setTitle('Report');
  ctx.root.append(loading('the report'));
  let result;
  try {
    result = await api.submission(id, { signal: ctx.signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    clear(ctx.root);
    if (error instanceof ApiError && error.status === 404) {
      ctx.root.append(el('div', { class: 'panel' },
        el('h1', {}, 'No such submission'),
        el('p', {}, 'There is no graded submission with the id ', el('code', {}, id), '. Check the permalink, or grade a note from a trial page.'),
        el('p', {}, el('a', { href: '#/' }, 'See all trials'), ' · ', el('a', { href: '#/leaderboard' }, 'Leaderboard'))));
      return;
    }
    ctx.root.append(el('h1', {}, 'Report'), errorPanel('Could not load the report', error, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
    return;
  }
  ctx.setTitle(`Report: ${result.trial_title ?? result.script_id ?? id}`);
  const note = typeof result.scribe_output === 'string' ? result.scribe_output : recallNote(id);
  const index = new EvidenceIndex(note !== null);
  // The note section is built first so the evidence buttons above it know where the marks are.
  const noteNode = noteSection(result, note, index);
  // One layout per task kind (SPEC: the web app dispatches on the kind and nowhere else).
  const layout = LAYOUTS[result.kind] ?? LAYOUTS.note;
  clear(ctx.root).append(
    ...header(result, id),
    unsafeBanner(result, index),
    ...layout(result, index),
    noteNode,
    provenance(result, id));
}
