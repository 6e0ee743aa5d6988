// #/methodology — the rules the grader applies, rendered from GET api/methodology (generated
// from the same data the grader loads), so this page cannot drift from the grader.
// Known keys get a readable layout; any key this page does not know yet is still shown, as
// data, under "Other published rules".

import { api } from '../api.js';
import { el, humanize, table, section, loading, errorPanel, clear } from '../render.js';

const KNOWN = new Set(['grader_version', 'methodology_version', 'terminology', 'scores', 'default_credit', 'penalties',
  'critical_errors', 'assertion', 'frequencies', 'units', 'routes', 'actions', 'clinical_synonyms', 'changelog', 'limitations', 'kinds']);

const CREDIT_ORDER = ['name', 'dose', 'frequency', 'route', 'action'];
/** The assertion lists in reading order (the rest follow as published); within one, before → after → pseudo. */
const ASSERTION_ORDER = ['negated', 'hypothetical', 'historical', 'family', 'terminators', 'experiencer_terminators', 'qualifiers'];
const PLACE_ORDER = ['pre', 'post', 'pseudo'];
const byOrder = (order) => ([a], [b]) => ((order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));

const chips = (items) => el('ul', { class: 'term-list' }, items.map((t) => el('li', {}, el('code', {}, String(t)))));

/** A collapsible block for long tables and lists, with a count in its summary. */
const details = (title, count, ...children) => el('details', { class: 'panel-details' },
  el('summary', {}, title, el('span', { class: 'muted' }, ` (${count})`)), ...children);

/** Any JSON value as nested lists of text: the fallback for keys the page does not know. */
function plain(value) {
  if (Array.isArray(value)) return el('ul', { class: 'plain' }, value.map((v) => el('li', {}, plain(v))));
  if (value && typeof value === 'object') {
    return el('dl', { class: 'plain' }, Object.entries(value).map(([k, v]) => [el('dt', {}, humanize(k)), el('dd', {}, plain(v))]));
  }
  return el('code', {}, value === null ? 'null' : String(value));
}

function versions(m) {
  const t = m.terminology ?? {};
  return el('dl', { class: 'facts' },
    [['Grader', m.grader_version], ['Methodology', m.methodology_version], ['Offline terminology', t.offline],
      ['RxNorm release', t.rxnorm_release], ['Concepts', t.concepts?.toLocaleString?.() ?? t.concepts]]
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', {}, String(v)))));
}

function scoring(m) {
  const scores = m.scores ?? {};
  const credit = m.default_credit ?? {};
  const penalties = m.penalties ?? {};
  return section('How a note is scored', 'scoring',
    el('dl', { class: 'rules' }, Object.entries(scores).map(([k, v]) => el('div', {}, el('dt', {}, humanize(k)), el('dd', {}, String(v))))),
    el('h3', {}, 'Default credit per medication'),
    table({
      stack: false,
      caption: 'Default credit per medication',
      head: ['Field', { label: 'Credit', num: true }],
      rows: Object.entries(credit).sort(byOrder(CREDIT_ORDER)).map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, humanize(k)), el('td', {}, v ? Number(v).toFixed(2) : 'reported, no credit'))),
    }),
    el('h3', {}, 'Penalties and thresholds'),
    el('dl', { class: 'rules' }, Object.entries(penalties).map(([k, v]) => el('div', {}, el('dt', {}, humanize(k)), el('dd', {}, el('code', {}, String(v)))))),
    el('h3', {}, 'Critical errors'),
    el('p', {}, 'Any one of these marks a note ', el('strong', {}, 'Unsafe as written'), ', whatever its score:'),
    chips((m.critical_errors ?? []).map(humanize)));
}

function assertion(m) {
  const rules = m.assertion ?? {};
  const blocks = [];
  for (const [name, value] of Object.entries(rules).sort(byOrder(ASSERTION_ORDER))) {
    if (name === 'version') continue;
    if (Array.isArray(value)) {
      blocks.push(details(humanize(name), value.length, chips(value)));
    } else if (value && typeof value === 'object') {
      const parts = Object.entries(value).filter(([, v]) => Array.isArray(v)).sort(byOrder(PLACE_ORDER));
      const total = parts.reduce((n, [, v]) => n + v.length, 0);
      blocks.push(details(humanize(name), total, parts.map(([where, v]) => [
        el('h3', { class: 'subhead' }, { pre: 'Before the finding', post: 'After the finding', pseudo: 'Pseudo-triggers (do not count)' }[where] ?? humanize(where)),
        chips(v)])));
    }
  }
  return section('Assertion: negated, historical, hypothetical, family', 'assertion',
    el('p', {}, 'Every finding is classified ConText-style before it counts. A trigger before or after a finding sets its assertion until a terminator ends the scope; pseudo-triggers such as “no change” do not negate. These lists are the ones the grader loads',
      rules.version ? ` (version ${rules.version})` : '', '.'),
    blocks);
}

function normalisers(m) {
  const rowsOf = (items, cols) => items.map((item) => el('tr', {}, cols.map((c, i) => {
    const v = item[c];
    const text = v === null || v === undefined ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v);
    return i === 0 ? el('th', { scope: 'row' }, text) : el('td', {}, text);
  })));
  const frequencies = m.frequencies ?? [];
  const units = m.units ?? [];
  const routes = m.routes ?? [];
  const actions = m.actions ?? [];
  const synonyms = m.clinical_synonyms ?? [];
  return section('Normalisers', 'normalisers',
    el('p', {}, 'How doses, frequencies, routes and actions written in a note are read. Expected values in the trials are parsed by the same tables.'),
    details('Frequencies', frequencies.length, table({ stack: false, caption: 'Frequencies', head: ['Pattern', 'Per day', 'As needed'], rows: rowsOf(frequencies, ['pattern', 'per_day', 'prn']) })),
    details('Units', units.length, table({ stack: false, caption: 'Units', head: ['Written', 'Unit', 'Factor', 'Family'], rows: rowsOf(units, ['token', 'unit', 'factor', 'family']) })),
    details('Routes', routes.length, table({ stack: false, caption: 'Routes', head: ['Written', 'Route'], rows: rowsOf(routes, ['phrase', 'route']) })),
    details('Actions', actions.length, table({ stack: false, caption: 'Actions', head: ['Phrase', 'Action', 'Where'], rows: rowsOf(actions, ['phrase', 'action', 'where']) })),
    details('Clinical synonyms', synonyms.length, el('ul', { class: 'term-list' },
      synonyms.map((pair) => el('li', {}, Array.isArray(pair) ? [el('code', {}, String(pair[0])), ' ≡ ', el('code', {}, String(pair[1]))] : plain(pair))))));
}

/** Kind rubric (seed 001): categories, credit, deduction severities and detectors, its own changelog. */
function rubric(m) {
  const r = m.kinds?.rubric;
  if (!r) return null;
  const rows = (entries) => el('dl', { class: 'rules' }, entries.map(([k, v]) => el('div', {}, el('dt', {}, humanize(k)), el('dd', {}, String(v)))));
  return section('Kind rubric (seed 001: the psychiatry methodology)', 'rubric',
    el('p', {}, String(r.description ?? ''), ' Methodology ', el('strong', {}, String(r.methodology_version ?? '')), `, out of ${r.total_points ?? 100} points.`),
    table({
      stack: false,
      caption: 'Rubric categories and their default points',
      head: ['Category', { label: 'Points', num: true }],
      rows: (r.categories ?? []).map((c) => el('tr', {}, el('th', { scope: 'row' }, String(c.label ?? c.name)), el('td', { class: 'num' }, String(c.points)))),
    }),
    el('h3', {}, 'Credit per checklist item'),
    rows(Object.entries(r.credit ?? {})),
    el('h3', {}, 'Hallucination deductions'),
    table({
      stack: false,
      caption: 'Deduction severities',
      head: ['Severity', { label: 'Points', num: true }, 'Example'],
      rows: (r.severities ?? []).map((d) => el('tr', {}, el('th', { scope: 'row' }, String(d.label ?? d.name)), el('td', { class: 'num' }, `−${d.points}`), el('td', {}, String(d.examples ?? '')))),
    }),
    el('h3', {}, 'Found without a list'),
    el('ul', {}, (r.detectors ?? []).map((d) => el('li', {}, el('code', {}, String(d.class)), ` (${d.severity}): ${d.what}`))),
    rows([['total', r.total], ['seed fields', r.seed_fields]].filter(([, v]) => v)),
    (r.changelog ?? []).length ? [el('h3', {}, 'Rubric changelog'), el('ol', { class: 'changelog', reversed: true },
      r.changelog.map((e) => el('li', {}, el('strong', {}, String(e.version ?? '')), e.date ? el('span', { class: 'muted' }, ` · ${e.date}`) : null,
        el('ul', {}, (e.changes ?? []).map((c) => el('li', {}, String(c)))))))] : null);
}

/** Kinds fhir_extract and fhir_write (seed 003): answer formats, scores or dimensions, critical errors, ceilings. */
function fhir(m) {
  const x = m.kinds?.fhir_extract;
  const w = m.kinds?.fhir_write;
  if (!x && !w) return null;
  const rows = (entries) => el('dl', { class: 'rules' }, entries.map(([k, v]) => el('div', {}, el('dt', {}, humanize(k)), el('dd', {}, String(v)))));
  const ceilings = w?.max_daily_dose ?? [];
  return section('FHIR kinds (seed 003: structured clinical data)', 'fhir',
    x ? [el('h3', {}, 'fhir_extract — active medications from a bundle'),
      el('p', {}, String(x.description ?? '')),
      rows([['answer', x.answer], ['ground truth', x.ground_truth], ...Object.entries(x.scores ?? {}), ['unreadable answer', x.unreadable_answer]].filter(([, v]) => v)),
      el('p', {}, 'Critical errors: '), rows(Object.entries(x.critical_error_rules ?? {}))] : null,
    w ? [el('h3', {}, 'fhir_write — a MedicationStatement, four dimensions'),
      el('p', {}, String(w.description ?? '')),
      rows([['answer', w.answer], ...Object.entries(w.dimensions ?? {})].filter(([, v]) => v)),
      el('p', {}, 'Critical errors: '), rows(Object.entries(w.critical_error_rules ?? {})),
      details('Maximum daily doses, each from its FDA label', ceilings.length, table({
        caption: 'Maximum daily doses',
        head: ['Product or ingredient', { label: 'Maximum', num: true }, 'Basis', 'Source'],
        rows: ceilings.map((c) => el('tr', {},
          el('th', { scope: 'row' }, String(c.rxcui ?? c.ingredient ?? '')),
          el('td', { class: 'num' }, c.max === null || c.max === undefined ? 'none stated' : `${c.max} ${c.unit} per ${c.period === 'wk' ? 'week' : 'day'}`),
          el('td', {}, String(c.basis ?? '')),
          el('td', {}, String(c.source ?? '')))),
      }))] : null);
}

function limitations(m) {
  const items = m.limitations ?? [];
  return section('Limitations', 'limitations',
    items.length === 0 ? el('p', { class: 'muted' }, 'None published.') : el('ul', {}, items.map((text) => el('li', {}, String(text)))));
}

function changelog(m) {
  const entries = m.changelog ?? [];
  return section('Changelog', 'changelog',
    entries.length === 0 ? el('p', { class: 'muted' }, 'No entries.') : el('ol', { class: 'changelog', reversed: true },
      entries.map((e) => el('li', {},
        el('strong', {}, `${e.version ?? ''}`), e.date ? el('span', { class: 'muted' }, ` · ${e.date}`) : null,
        el('ul', {}, (e.changes ?? []).map((c) => el('li', {}, String(c))))))));
}

export async function render(ctx) {
  ctx.setTitle('Methodology');
  ctx.root.append(
    el('header', { class: 'page-head' },
      el('h1', {}, 'Methodology'),
      el('p', { class: 'lede' }, 'Grading is deterministic and rule-based — no language model — so the same note always gets the same score. ',
        'Everything below is served by the grader itself.')),
    loading('the methodology'));
  let m;
  try {
    m = await api.methodology({ signal: ctx.signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    ctx.root.lastChild.replaceWith(errorPanel('Could not load the methodology', error, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
    return;
  }
  const others = Object.entries(m).filter(([k]) => !KNOWN.has(k));
  const head = ctx.root.firstChild;
  clear(ctx.root).append(head,
    section('Versions', 'versions', versions(m)),
    scoring(m),
    assertion(m),
    normalisers(m),
    rubric(m),
    fhir(m),
    limitations(m),
    changelog(m),
    others.length ? section('Other published rules', 'other', others.map(([k, v]) => details(humanize(k), Array.isArray(v) ? v.length : Object.keys(v ?? {}).length, plain(v)))) : null);
}
