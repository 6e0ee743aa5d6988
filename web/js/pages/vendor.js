// #/vendors/:vendor — one vendor's standing: the suite summary the leaderboard uses, a per-trial
// table over every public trial (a trial not run counts 0), the real distribution of its run
// scores, and its runs newest first with their versions and review states.
// Data: GET api/vendors/:vendor/trials → {vendor, suite, trials}; GET api/vendors/:vendor →
// {vendor, claimed, first_seen_at, runs, next} (50 runs a page; "Older runs" follows `next`).

import { api, ApiError } from '../api.js';
import { el, svg, pct, grade, when, chip, table, section, loading, errorPanel, clear } from '../render.js';

const STATUS_KIND = { safe: 'ok', 'pending review': 'warn', confirmed: 'bad', cleared: 'ok' };
const score = (value) => (value === null || value === undefined ? '—' : pct(value));

/** A histogram of the run scores on a 0–100 % axis in 10 % bins; the 80 % pass line dashed. */
export function runHistogram(runs, { width = 320, height = 90 } = {}) {
  const scores = runs.map((r) => r.score_total).filter((s) => typeof s === 'number');
  const bins = new Array(10).fill(0);
  for (const s of scores) bins[Math.min(9, Math.floor(s * 10))] += 1;
  const top = Math.max(1, ...bins);
  const pad = 6;
  const axisY = height - 16;
  const barW = (width - 2 * pad) / 10;
  const label = `${scores.length} run scores: ${bins.map((n, i) => `${i * 10}–${i * 10 + 10} %: ${n}`).join(', ')}.`;
  const chart = svg('svg', { class: 'dist runs-hist', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('title', {}, label),
    ...bins.map((n, i) => {
      const h = (n / top) * (axisY - 4);
      return svg('rect', { class: `hist-bar ${grade((i + 0.5) / 10)}`, x: (pad + i * barW + 1).toFixed(1), y: (axisY - h).toFixed(1), width: (barW - 2).toFixed(1), height: h.toFixed(1) });
    }),
    svg('line', { class: 'dist-pass', x1: pad + 8 * barW, x2: pad + 8 * barW, y1: 2, y2: axisY }),
    svg('line', { class: 'dist-axis', x1: pad, x2: width - pad, y1: axisY, y2: axisY }));
  for (const tick of [0, 0.5, 0.8, 1]) {
    chart.append(svg('text', { class: 'dist-tick', x: pad + tick * (width - 2 * pad), y: height - 3, 'text-anchor': tick === 0 ? 'start' : tick === 1 ? 'end' : 'middle' }, `${Math.round(tick * 100)}`));
  }
  return chart;
}

function summary(standing) {
  const s = standing.suite ?? {};
  const facts = [
    ['Suite', `${s.trials_run ?? 0} of ${s.suite_trials ?? 0} public trials run`],
    ['Suite score', s.suite_score === null || s.suite_score === undefined ? 'not ranked yet (fewer than 3 counted runs)' : `${pct(s.suite_score)} (95 % interval ${pct(s.ci95_low)} – ${pct(s.ci95_high)})`],
    ['Counted runs', String(s.runs ?? '—')],
    ['Unsafe notes', `${s.unsafe ?? 0} confirmed, ${s.unsafe_pending ?? 0} pending clinician review`],
    ['Badge', s.passing === true ? 'passing' : 'not passing'],
  ];
  return section('Standing', 'standing',
    el('p', { class: 'hint' }, 'As on the leaderboard: each public trial counts once (the mean of its runs), a trial not run counts 0, identical resubmissions and blank notes never count.'),
    el('dl', { class: 'facts' }, facts.map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', {}, v)))));
}

function perTrial(standing) {
  return section('Per trial', 'per-trial',
    table({
      caption: 'Runs per trial',
      head: ['Trial', 'Kind', { label: 'Runs', num: true }, { label: 'Mean', num: true }, { label: 'Min', num: true }, { label: 'Max', num: true }, 'Unsafe', 'Last run'],
      rows: standing.trials.map((t) => el('tr', { class: t.runs ? null : 'not-run' },
        el('th', { scope: 'row' }, el('a', { href: `#/trials/${encodeURIComponent(t.script_id)}` }, t.title ?? t.script_id)),
        el('td', {}, t.kind),
        el('td', { class: 'num' }, String(t.runs)),
        el('td', { class: `num ${t.mean === null ? '' : grade(t.mean)}` }, t.runs ? score(t.mean) : 'not run (0)'),
        el('td', { class: 'num' }, score(t.min)),
        el('td', { class: 'num' }, score(t.max)),
        el('td', {}, t.unsafe ? chip(`${t.unsafe} confirmed`, 'bad') : t.unsafe_pending ? chip(`${t.unsafe_pending} pending review`, 'warn') : '—'),
        el('td', { class: 'date' }, t.last_run_at ? el('time', { datetime: t.last_run_at, title: when(t.last_run_at) }, when(t.last_run_at, 'short')) : '—'))),
    }));
}

function runRows(runs) {
  return runs.map((r) => el('tr', { class: r.counted ? null : 'not-counted' },
    el('th', { scope: 'row' }, el('a', { href: `#/submissions/${encodeURIComponent(r.id)}` }, r.id)),
    el('td', {}, r.script_id),
    el('td', { class: `num ${r.score_total === null ? '' : grade(r.score_total)}` }, score(r.score_total)),
    el('td', {}, chip(r.unsafe_status ?? (r.score_total === null ? 'not graded under the current version' : 'not counted'), STATUS_KIND[r.unsafe_status] ?? 'neutral')),
    el('td', {}, r.counted ? 'yes' : r.blank ? 'no (blank)' : 'no (identical resubmission, or not graded under the current version)'),
    el('td', {}, `grader ${r.grader_version ?? '—'}, methodology ${r.methodology_version ?? '—'}`),
    el('td', { class: 'date' }, el('time', { datetime: r.created_at, title: when(r.created_at) }, when(r.created_at, 'short')))));
}

export async function render(ctx) {
  const [vendor] = ctx.params;
  ctx.setTitle(`Vendor: ${vendor}`);
  const body = el('div', {}, loading('the vendor'));
  ctx.root.append(
    el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, el('a', { href: '#/leaderboard' }, 'Leaderboard'), ' / ', el('span', { 'aria-current': 'page' }, 'vendor')),
    body);
  let standing;
  let page;
  try {
    [standing, page] = await Promise.all([api.vendorTrials(vendor, { signal: ctx.signal }), api.vendor(vendor, null, { signal: ctx.signal })]);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    clear(body);
    if (error instanceof ApiError && error.status === 404) {
      body.append(el('div', { class: 'panel' }, el('h1', {}, 'No such vendor'),
        el('p', {}, 'No note was ever submitted as ', el('strong', { class: 'vendor' }, vendor), '. ', el('a', { href: '#/leaderboard' }, 'See the leaderboard'), '.')));
      return;
    }
    body.append(el('h1', {}, 'Vendor'), errorPanel('Could not load the vendor', error, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
    return;
  }
  ctx.setTitle(`Vendor: ${standing.vendor}`);
  const runs = [...page.runs];
  const tbody = el('tbody', {}, runRows(runs));
  const chartSlot = el('figure', { class: 'dist-figure' });
  const drawChart = () => clear(chartSlot).append(runHistogram(runs),
    el('figcaption', {}, `The scores of the ${runs.length} runs shown below, in 10 % bins (counted or not); dashed: 80 %.`));
  drawChart();
  let next = page.next;
  const more = el('button', { type: 'button', class: 'button', hidden: next ? null : '' }, 'Older runs');
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const older = await api.vendor(vendor, next, { signal: ctx.signal });
      runs.push(...older.runs);
      tbody.append(...runRows(older.runs));
      drawChart();
      next = older.next;
      more.hidden = !next;
    } finally {
      more.disabled = false;
    }
  });
  clear(body).append(
    el('header', { class: 'page-head' },
      el('h1', {}, 'Vendor: ', el('span', { class: 'vendor' }, standing.vendor)),
      el('div', { class: 'page-meta' },
        page.claimed ? chip('claimed name', 'ok') : chip('unclaimed name', 'neutral'),
        page.first_seen_at ? el('span', {}, 'First run ', el('time', { datetime: page.first_seen_at }, when(page.first_seen_at))) : null)),
    summary(standing),
    perTrial(standing),
    section('Runs', 'runs',
      chartSlot,
      el('div', { class: 'table-scroll stack-on-phone', tabindex: '0', role: 'region', 'aria-label': 'Runs table' },
        el('table', { class: 'runs' },
          el('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
          el('thead', {}, el('tr', {}, ['Submission', 'Trial', 'Score', 'Safety', 'Counted', 'Versions', 'Submitted'].map((h) => el('th', { scope: 'col' }, h)))),
          tbody)),
      more));
}
