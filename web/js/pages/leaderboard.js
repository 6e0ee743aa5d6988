// #/leaderboard — vendors with ≥ 3 runs: a sortable table, each vendor's score distribution as a
// small hand-drawn SVG, and the Trial Pass badge with copyable Markdown and HTML embeds.
// Data: GET api/leaderboard → [{vendor, runs, trials, suite_trials, avg_score, stddev, ci95_low,
// ci95_high, unsafe, unsafe_pending, last_submitted_at, passing}]; badge images from GET api/badge/:vendor.svg.
//
// The API publishes each vendor's mean, standard deviation and 95 % interval, not its per-run
// scores, so the chart draws the normal curve those describe (clipped to 0–100 %) with the
// interval shaded and the mean marked — and says so in its description.

import { api, appUrl } from '../api.js';
import { el, svg, pct, grade, when, copyable, loading, errorPanel, clear } from '../render.js';

const PASS = 0.8;

/** Notes flagged unsafe and not cleared: confirmed by two clinicians, or awaiting review. */
const flagged = (r) => (r.unsafe ?? 0) + (r.unsafe_pending ?? 0);
const notes = (n) => (n === 1 ? 'one note was' : `${n} notes were`);

/** Why a vendor has no badge, in the order the badge itself decides it. */
function noBadgeReason(row) {
  if (row.unsafe > 0) {
    return `No badge: ${notes(row.unsafe)} unsafe as written (a critical error two clinicians confirmed), and a vendor with an unsafe note never passes, whatever its average. The embed shows “${row.unsafe} unsafe” in red.`;
  }
  if (row.unsafe_pending > 0) {
    return `No badge: ${notes(row.unsafe_pending)} flagged unsafe as written (a critical error awaiting clinician review), and a vendor with an unsafe note never passes, whatever its average. The embed shows “unsafe: review pending” until two clinicians decide.`;
  }
  if (row.trials < row.suite_trials) {
    return `No badge yet: ${row.trials} of ${row.suite_trials} public trials run. A badge needs the complete suite (a trial not run counts 0).`;
  }
  return `No badge yet: the suite score (${pct(row.avg_score)}) is below 80 %. The embed starts showing the badge once it passes.`;
}

const COLUMNS = [
  { key: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank },
  { key: 'vendor', label: 'Vendor', value: (r) => r.vendor.toLowerCase() },
  { key: 'avg_score', label: 'Average', numeric: true, value: (r) => r.avg_score },
  { key: 'ci95', label: '95 % CI', numeric: true, value: (r) => r.ci95_low },
  { key: 'stddev', label: 'Spread (SD)', numeric: true, value: (r) => r.stddev },
  { key: 'runs', label: 'Runs', numeric: true, value: (r) => r.runs },
  { key: 'trials', label: 'Trials', numeric: true, value: (r) => r.trials },
  { key: 'unsafe', label: 'Unsafe', numeric: true, value: (r) => flagged(r) },
  { key: 'last_submitted_at', label: 'Last run', value: (r) => r.last_submitted_at ?? '' },
];

/** Escapes text for an HTML attribute in the embed snippet (vendor names are validated, but still). */
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function embeds(vendor) {
  const badge = api.badgeUrl(vendor);
  const board = appUrl('#/leaderboard');
  const alt = `scribe-trials Trial Pass: ${vendor}`;
  return {
    markdown: `[![${alt.replace(/[[\]\\]/g, '\\$&')}](${badge})](${board})`,
    html: `<a href="${escapeHtml(board)}"><img src="${escapeHtml(badge)}" alt="${escapeHtml(alt)}"></a>`,
  };
}

/** Standard normal density, unscaled. */
const bell = (x, mean, sd) => Math.exp(-0.5 * ((x - mean) / sd) ** 2);

/**
 * The score-distribution chart: normal curve from mean and SD on a 0–100 % axis, the 95 %
 * interval shaded, the mean as a line, the 80 % pass threshold dashed.
 */
export function distributionChart(row, { width = 220, height = 56, compact = false } = {}) {
  const pad = 6;
  const axisY = height - (compact ? 8 : 16);
  const plotW = width - 2 * pad;
  const x = (score) => pad + Math.max(0, Math.min(1, score)) * plotW;
  const mean = Number(row.avg_score) || 0;
  const sd = Math.max(Number(row.stddev) || 0, 0.004); // a zero spread still draws a visible spike
  const top = 4;
  const points = [];
  for (let i = 0; i <= 100; i += 1) {
    const score = i / 100;
    points.push(`${x(score).toFixed(1)},${(axisY - bell(score, mean, sd) * (axisY - top)).toFixed(1)}`);
  }
  const low = Number(row.ci95_low ?? mean);
  const high = Number(row.ci95_high ?? mean);
  const label = `${row.vendor}: mean ${pct(mean)}, standard deviation ${pct(row.stddev)}, 95 % interval ${pct(low)} to ${pct(high)}, over ${row.runs} runs.`;
  const chart = svg('svg', { class: `dist ${compact ? 'dist-compact' : ''}`, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('title', {}, label),
    svg('rect', { class: 'dist-ci', x: x(low).toFixed(1), y: top, width: Math.max(1, x(high) - x(low)).toFixed(1), height: axisY - top }),
    svg('polygon', { class: `dist-curve ${grade(mean)}`, points: `${x(0)},${axisY} ${points.join(' ')} ${x(1)},${axisY}` }),
    svg('line', { class: 'dist-pass', x1: x(PASS), x2: x(PASS), y1: top - 2, y2: axisY }),
    svg('line', { class: 'dist-mean', x1: x(mean), x2: x(mean), y1: top - 2, y2: axisY }),
    svg('line', { class: 'dist-axis', x1: pad, x2: width - pad, y1: axisY, y2: axisY }));
  if (!compact) {
    for (const tick of [0, 0.5, PASS, 1]) {
      chart.append(svg('text', { class: 'dist-tick', x: x(tick), y: height - 3, 'text-anchor': tick === 0 ? 'start' : tick === 1 ? 'end' : 'middle' }, `${Math.round(tick * 100)}`));
    }
  }
  return chart;
}

function sortRows(rows, sort) {
  const column = COLUMNS.find((c) => c.key === sort.key) ?? COLUMNS[0];
  const dir = sort.dir === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = column.value(a);
    const vb = column.value(b);
    const cmp = typeof va === 'string' ? va.localeCompare(vb) : (va ?? -Infinity) - (vb ?? -Infinity);
    return cmp * dir || a.rank - b.rank;
  });
}

function leaderTable(rows, sort, onSort) {
  const head = COLUMNS.map((c) => {
    const active = sort.key === c.key;
    return el('th', { scope: 'col', class: c.numeric ? 'num' : null, 'aria-sort': active ? sort.dir : null },
      el('button', { type: 'button', class: 'sort', onclick: () => onSort(c.key) },
        c.label, el('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (sort.dir === 'ascending' ? ' ▲' : ' ▼') : ' ↕')));
  });
  head.push(el('th', { scope: 'col' }, 'Distribution'));
  const cell = (key, attrs, ...children) => el('td', { 'data-label': COLUMNS.find((c) => c.key === key)?.label ?? key, ...attrs }, ...children);
  const body = sortRows(rows, sort).map((r) => el('tr', { class: r.passing ? 'passing' : null },
    cell('rank', { class: 'num' }, String(r.rank)),
    el('th', { scope: 'row', class: 'vendor' }, el('a', { href: `#/vendors/${encodeURIComponent(r.vendor)}`, title: `${r.vendor}: runs and per-trial scores` }, r.vendor), r.passing ? el('span', { class: 'pass-mark', title: 'average ≥ 80 % and no unsafe note: badge earned' }, ' ✓') : null),
    cell('avg_score', { class: `num score-value ${grade(r.avg_score)}` }, pct(r.avg_score)),
    cell('ci95', { class: 'num' }, `${pct(r.ci95_low)} – ${pct(r.ci95_high)}`),
    cell('stddev', { class: 'num' }, pct(r.stddev)),
    cell('runs', { class: 'num' }, String(r.runs)),
    cell('trials', { class: `num ${r.suite_trials && r.trials < r.suite_trials ? 'incomplete' : ''}`, title: r.suite_trials && r.trials < r.suite_trials ? 'incomplete suite: a trial not run counts 0' : null },
      r.suite_trials ? `${r.trials} / ${r.suite_trials}` : String(r.trials)),
    cell('unsafe', { class: `num ${flagged(r) > 0 ? 'unsafe-count' : ''}`, title: r.unsafe_pending > 0 ? `${r.unsafe_pending} awaiting clinician review` : null },
      String(flagged(r)), r.unsafe_pending > 0 ? el('span', { class: 'muted' }, ` (${r.unsafe_pending} pending)`) : null),
    cell('last_submitted_at', { class: 'date' }, r.last_submitted_at ? el('time', { datetime: r.last_submitted_at, title: when(r.last_submitted_at) }, when(r.last_submitted_at, 'short')) : '—'),
    el('td', { 'data-label': 'Distribution' }, distributionChart(r, { width: 110, height: 28, compact: true }))));
  return el('div', { class: 'table-scroll stack-on-phone', tabindex: '0', role: 'region', 'aria-label': 'Leaderboard table' },
    el('table', { class: 'leaderboard' },
      el('caption', { class: 'visually-hidden' }, 'Leaderboard: vendors with at least three runs. Column headers sort the table.'),
      el('thead', {}, el('tr', {}, head)),
      el('tbody', {}, body)));
}

/** The same sorting as the column headers, as a control that stays visible on phones. */
function sortControl(sort, onChoose) {
  const select = el('select', { id: 'sort-by' },
    COLUMNS.map((c) => el('option', { value: c.key, selected: c.key === sort.key }, c.label)));
  select.addEventListener('change', () => onChoose(select.value));
  const direction = el('button', { type: 'button', class: 'button button-small', onclick: () => onChoose(sort.key) },
    sort.dir === 'ascending' ? 'Ascending ▲' : 'Descending ▼');
  return el('div', { class: 'sort-control' }, el('label', { for: 'sort-by' }, 'Sort by'), select, direction);
}

function badgeCard(row) {
  const snippet = embeds(row.vendor);
  const headingId = `badge-${row.rank}-heading`;
  return el('article', { class: 'panel badge-card', 'aria-labelledby': headingId },
    el('div', { class: 'badge-side' },
      el('h3', { id: headingId }, row.vendor),
      el('div', { class: 'badge-preview' },
        row.passing
          ? el('img', { src: api.badgeUrl(row.vendor), alt: `scribe-trials Trial Pass badge for ${row.vendor}`, height: '20', class: 'badge-img' })
          : el('p', { class: 'muted no-badge' }, noBadgeReason(row))),
      el('figure', { class: 'dist-figure' },
        distributionChart(row, { width: 280, height: 76 }),
        el('figcaption', {}, `Mean ${pct(row.avg_score)} (solid line) and 95 % interval ${pct(row.ci95_low)} – ${pct(row.ci95_high)} (band) over ${row.runs} runs; the curve is the normal spread they imply. Dashed: 80 % pass.`))),
    el('div', { class: 'badge-embeds' },
      copyable('Markdown', snippet.markdown, { multiline: true }),
      copyable('HTML', snippet.html, { multiline: true })));
}

export async function render(ctx) {
  ctx.setTitle('Leaderboard');
  const body = el('div', {}, loading('the leaderboard'));
  ctx.root.append(
    el('header', { class: 'page-head' },
      el('h1', {}, 'Leaderboard'),
      el('p', { class: 'lede' },
        'Vendors with at least three graded runs, best suite score first: each public trial counts once (the mean of its runs), and a trial not run counts 0. ',
        'The spread and the 95 % interval show how consistent a scribe is; unsafe notes had at least one critical error, whatever their score: it counts against the rank once two clinicians confirm it, and no badge is issued while it awaits review. ',
        'Every public trial run, at least three runs, a suite score of 80 % or more and no unsafe note earn the Trial Pass badge; ',
        'vendors with a confirmed unsafe note are ranked below every vendor without one.')),
    body);

  let rows;
  try {
    rows = await api.leaderboard({ signal: ctx.signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    clear(body).append(errorPanel('Could not load the leaderboard', error, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
    return;
  }
  if (rows.length === 0) {
    clear(body).append(el('div', { class: 'panel' },
      el('h2', {}, 'No vendors yet'),
      el('p', {}, 'A vendor appears here after three graded runs. ', el('a', { href: '#/' }, 'Pick a trial'), ' to submit one.')));
    return;
  }
  rows = rows.map((r, i) => ({ ...r, rank: i + 1 }));
  const sort = { key: 'rank', dir: 'ascending' };
  const tableSlot = el('div', {});
  const status = el('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const choose = (key, focusHeader) => {
    const column = COLUMNS.find((c) => c.key === key);
    if (sort.key === key) sort.dir = sort.dir === 'ascending' ? 'descending' : 'ascending';
    else Object.assign(sort, { key, dir: column.numeric && key !== 'rank' ? 'descending' : 'ascending' });
    draw();
    status.textContent = `Sorted by ${column.label}, ${sort.dir}.`;
    (focusHeader ? tableSlot.querySelector('th[aria-sort] button') : tableSlot.querySelector('#sort-by'))?.focus();
  };
  const draw = () => {
    clear(tableSlot).append(
      sortControl(sort, (key) => choose(key, false)),
      leaderTable(rows, sort, (key) => choose(key, true)));
  };
  draw();
  clear(body).append(
    el('section', { class: 'panel', 'aria-labelledby': 'ranking-heading' },
      el('h2', { id: 'ranking-heading' }, 'Ranking'), tableSlot, status),
    el('section', { 'aria-labelledby': 'badges-heading' },
      el('h2', { id: 'badges-heading' }, 'Badges and score distributions'),
      el('p', { class: 'hint' }, 'Paste a snippet into a README or web page. The badge is served live: it reflects the vendor’s current average.'),
      rows.map(badgeCard)));
}
