// Browser tests for the web app, in a real headless browser against the real stack.
//
//   cd tests/browser && npm ci && node run.mjs      (ctest runs this as "browser")
//
// Starts `scripts/serve` on a free loopback port with a temporary SCRIBE_DB (SCRIBE_OFFLINE=1:
// the grader never reaches the internet), drives Debian's /usr/bin/chromium with playwright-core
// (no browser is ever downloaded), and stops the stack when done, whatever happens.
// SCRIBE_BASE_URL=http://host:port/scribe-trials/ points the tests at a stack already running.
//
// What is checked (issue 5): every route renders at 1280 and 375 px; submitting a note shows its
// report with evidence highlighted; back, forward and reload; the leaderboard after 3 runs, with
// a badge image that loads and copyable embeds; XSS payloads in the vendor name (422, shown next
// to the field) and in the note (shown as text) never execute; no console errors or CSP
// violations; axe-core finds no serious or critical violations on any page; the trial page plays
// the first second of its recording (issue 16) and says why when a trial has none. Screenshots go to
// tests/artifacts/ (git-ignored) — look at them.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(path.join(HERE, 'node_modules/axe-core/axe.min.js'), 'utf8');
const TRIAL = '03-depression-suicidal-ideation';
const NOTES = path.join(ROOT, 'tests/fixtures/notes');
const WIDTHS = [1280, 375];
const DEADLINE_MS = 170_000; // the whole suite, stack start-up included, stays under 3 minutes
const XSS_NOTE_PAYLOADS = ['<img src=x onerror=window.__xss=1>', '<script>window.__xss=1</script>'];

let stack = null; // { process, dir } when this file started the stack
const startedGroups = new Set(); // process groups of the stack: scripts/serve's and nginx's
let base = null; // http://127.0.0.1:PORT/scribe-trials/
let browser = null;
const vendorRun = `Browser Test ${process.pid}`; // unique per run, so a reused database cannot skew counts

// ---- the stack -----------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitForHealth(url, child, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child && child.exitCode !== null) throw new Error(`scripts/serve exited early with code ${child.exitCode}`);
    try {
      const response = await fetch(new URL('health', url), { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await sleep(300);
  }
  throw new Error(`the stack did not answer ${url}health within ${timeoutMs / 1000} s`);
}

/** Live processes of the given process groups: [{ pid, comm, pgid }]. */
function processesInGroups(groups) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, , pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state !== 'Z' && groups.has(Number(pgid))) found.push({ pid: Number(entry), comm, pgid: Number(pgid) });
  }
  return found;
}

function stopStack() {
  if (!stack) return;
  const { process: child, dir } = stack;
  stack = null;
  if (child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM'); // scripts/serve runs in its own process group
    } catch {
      // already gone
    }
  }
  return new Promise((resolve) => {
    const done = () => {
      rmSync(dir, { recursive: true, force: true });
      resolve();
    };
    if (child.exitCode !== null) return done();
    const kill = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
  });
}

async function startStack() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'scribe-browser-'));
  const log = [];
  const child = spawn(path.join(ROOT, 'scripts/serve'), [], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // SCRIBE_BUILD_DIR and SCRIBE_SKIP_SETUP pass through (ctest sets them to the build under test).
    env: {
      ...process.env, HOST: '127.0.0.1', PORT: String(port), SCRIBE_OFFLINE: '1',
      SCRIBE_DB: path.join(dir, 'test.db'), SCRIBE_RUN_DIR: path.join(dir, 'run'),
    },
  });
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => log.push(chunk.toString()));
  stack = { process: child, dir };
  const url = `http://127.0.0.1:${port}/scribe-trials/`;
  try {
    await waitForHealth(url, child, 120_000);
    startedGroups.add(child.pid); // detached: scripts/serve leads its group (supervisor, workers)
    startedGroups.add(Number(readFileSync(path.join(dir, 'run', 'nginx.pgid'), 'utf8'))); // nginx leads its own
  } catch (error) {
    const tail = log.join('').split('\n').slice(-30).join('\n');
    await stopStack();
    throw new Error(`${error.message}\n--- scripts/serve output (tail) ---\n${tail}`);
  }
  return url;
}

// ---- helpers -------------------------------------------------------------------------------

/** A fresh page at a width, recording console errors, page errors and CSP violations. */
async function openPage(width, { permissions = [] } = {}) {
  const context = await browser.newContext({ viewport: { width, height: width < 600 ? 812 : 900 }, permissions });
  const page = await context.newPage();
  page.problems = [];
  page.allowedProblems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || (msg.type() === 'warning' && /Content.Security.Policy/i.test(msg.text()))) page.problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    page.problems.push(`dialog opened: ${dialog.message()}`);
    dialog.dismiss();
  });
  return page;
}

/** Fails with every console error, page error or CSP violation the page saw, except allowed ones. */
async function closePage(page) {
  const problems = page.problems.filter((p) => !page.allowedProblems.some((re) => re.test(p)));
  await page.context().close();
  assert.deepEqual(problems, [], 'the page logged errors');
}

async function go(page, hash) {
  await page.goto(new URL(hash, base).href);
  await settle(page);
}

/** Waits until the router has finished rendering the current route (the location's own render:
 * right after a click or goBack() the page still shows the route before it, finished). */
async function settle(page) {
  await page.waitForFunction(() => {
    const main = document.getElementById('main');
    return main && main.dataset.hash === location.hash && !main.hasAttribute('aria-busy') &&
      main.querySelector('h1') && !main.querySelector('.loading');
  }, null, { timeout: 15_000 });
}

async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  const width = page.viewportSize().width;
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
}

/** Runs axe-core in the page (evaluated through the DevTools protocol, so the CSP stays strict). */
async function axeCheck(page, label) {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const summary = bad.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(summary, [], `axe found serious or critical violations on ${label}`);
}

/** Nothing may overflow the viewport horizontally (usable at 375 px). */
async function assertNoHorizontalScroll(page, label) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `${label} scrolls sideways by ${overflow}px at ${page.viewportSize().width}px`);
}

function note(trial, name) {
  return readFileSync(path.join(NOTES, trial, `${name}.txt`), 'utf8');
}

/** POST api/submit straight to the API (to seed runs), waiting out the submit rate limit if hit. */
// The public reads come through nginx's edge cache, which may answer from before a commit for up
// to 1 s (docs/http-api.md, "Caching"): after writing through the API, wait until the
// leaderboard shows `ready` before a page reads it, as a person switching to the browser would.
async function edgeFresh(ready, within = 2000) {
  const start = Date.now();
  for (;;) {
    const rows = await (await fetch(new URL('api/leaderboard', base))).json();
    if (ready(rows)) return Date.now() - start;
    assert.ok(Date.now() - start < within, `the leaderboard was not fresh after ${Date.now() - start} ms`);
    await sleep(20);
  }
}

async function submitViaApi(body) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const response = await fetch(new URL('api/submit', base), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    if (response.status === 429) {
      await sleep(1000 * (Number(response.headers.get('retry-after')) || 1));
      continue;
    }
    const data = await response.json();
    assert.ok(response.ok, `submit failed: ${response.status} ${JSON.stringify(data)}`);
    return data;
  }
  throw new Error('submit stayed rate limited');
}

/** Submits through the form on the trial page and waits for the report. */
async function submitViaForm(page, { vendor, text }) {
  await go(page, `#/trials/${TRIAL}`);
  await page.getByLabel('Vendor name').fill(vendor);
  await page.getByLabel('Scribe output').fill(text);
  await page.getByRole('button', { name: 'Grade this note' }).click();
  await page.waitForURL(/#\/submissions\/[^/]+$/, { timeout: 20_000 });
  await settle(page);
  return decodeURIComponent(new URL(page.url()).hash.replace('#/submissions/', ''));
}

// ---- set-up --------------------------------------------------------------------------------

const watchdog = setTimeout(async () => {
  console.error(`browser tests exceeded ${DEADLINE_MS / 1000} s: stopping`);
  await stopStack();
  process.exit(1);
}, DEADLINE_MS);
watchdog.unref();
process.on('exit', () => {
  if (stack?.process.exitCode === null) {
    try {
      process.kill(-stack.process.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, async () => { await stopStack(); process.exit(1); });

before(async () => {
  base = process.env.SCRIBE_BASE_URL || await startStack();
  if (!base.endsWith('/')) base += '/';
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright gives every launch a fresh, temporary --user-data-dir of its own.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await stopStack();
});

// ---- tests ---------------------------------------------------------------------------------

let reportId = null; // the report submitted through the form, reused by later tests
let rubricReportId; // a kind-rubric report (trial 11), set by its test

test('submitting a note through the form shows its report, with a busy state while grading', async () => {
  const page = await openPage(1280);
  await go(page, `#/trials/${TRIAL}`);
  await assert.doesNotReject(page.getByText('Synthetic data only.', { exact: false }).first().waitFor());
  // Hold the real request briefly so the busy state can be observed.
  await page.route('**/api/submit', async (route) => {
    await sleep(400);
    await route.continue();
  });
  await page.getByLabel('Vendor name').fill(vendorRun);
  await page.getByLabel('Scribe output').fill(note(TRIAL, 'contradicted-flag'));
  await page.getByRole('button', { name: 'Grade this note' }).click();
  const busy = await page.evaluate(() => {
    const form = document.querySelector('form.submit-form');
    const button = form.querySelector('button[type="submit"]');
    return { busy: form.getAttribute('aria-busy'), disabled: button.disabled, text: button.textContent };
  });
  assert.deepEqual(busy, { busy: 'true', disabled: true, text: 'Grading…' });
  await page.waitForURL(/#\/submissions\/[^/]+$/, { timeout: 20_000 });
  await settle(page);
  reportId = decodeURIComponent(new URL(page.url()).hash.replace('#/submissions/', ''));

  const report = await page.evaluate(() => ({
    h1: document.querySelector('h1').textContent,
    unsafe: document.querySelector('.banner-unsafe h2')?.textContent,
    critical: [...document.querySelectorAll('.critical-list li')].map((li) => li.textContent),
    bars: document.querySelectorAll('#scores .score').length,
    medRows: document.querySelectorAll('#meds .med-table tbody tr').length,
    flags: [...document.querySelectorAll('#flags tbody tr')].map((tr) => tr.textContent),
    marks: [...document.querySelectorAll('#note mark')].map((m) => m.textContent),
    truth: document.querySelector('#truth').textContent,
    provenance: document.querySelector('#provenance').textContent,
    permalink: document.querySelector('#provenance input.snippet').value,
  }));
  assert.match(report.h1, /Depression follow-up/);
  assert.equal(report.unsafe, 'Unsafe as written');
  assert.ok(report.critical.some((c) => /passive suicidal ideation/.test(c)), 'the contradicted flag is a listed critical error');
  assert.equal(report.bars, 4, 'total and three category bars');
  assert.equal(report.medRows, 5, 'sertraline: name, dose, frequency, route, action');
  assert.ok(report.flags.some((f) => /passive suicidal ideation/.test(f) && /contradicted/.test(f)));
  assert.ok(report.flags.some((f) => /insomnia/.test(f) && /captured/.test(f)));
  assert.ok(report.marks.includes('SI') && report.marks.includes('insomnia'), `evidence is marked in the note: ${report.marks}`);
  assert.match(report.truth, /sertraline/);
  assert.match(report.provenance, /[0-9a-f]{64}/);
  assert.match(report.provenance, /Grader version/);
  assert.equal(report.permalink, new URL(`#/submissions/${encodeURIComponent(reportId)}`, base).href);

  await screenshot(page, 'report-just-submitted');
  // An evidence button scrolls to and focuses its mark in the note.
  await page.locator('#flags button.evidence').first().click();
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'MARK');
  await closePage(page);
});

test('the report of a rubric trial shows the checklist, the deductions and the points per category', async () => {
  const trial = '11-acute-suicide-risk-assessment';
  const graded = await submitViaApi({ script_id: trial, vendor: `${vendorRun} Rubric`, scribe_output: note(trial, 'floor') });
  rubricReportId = graded.id;
  const page = await openPage(1280);
  await go(page, `#/submissions/${encodeURIComponent(rubricReportId)}`);
  const report = await page.evaluate(() => ({
    unsafe: document.querySelector('.banner-unsafe h2')?.textContent,
    bars: [...document.querySelectorAll('#scores .score')].map((b) => b.textContent),
    items: document.querySelectorAll('#checklist tbody tr').length,
    full: [...document.querySelectorAll('#checklist tbody tr.credit-full th')].map((th) => th.textContent),
    deductions: [...document.querySelectorAll('#deductions tbody tr')].map((tr) => tr.textContent),
    meds: document.querySelectorAll('#meds').length,
    truth: document.querySelectorAll('#truth tbody tr').length,
  }));
  // The expectations are the trial's own (29 items, 4 categories) and cases.yaml's hand count.
  assert.equal(report.unsafe, 'Unsafe as written');
  assert.equal(report.bars.length, 5, 'the total and the four categories');
  assert.match(report.bars[0], /checklist points − \d+ deducted/);
  assert.equal(report.items, 29);
  assert.equal(report.full.length, graded.counts.items_full);
  assert.equal(report.deductions.length, graded.rubric.deductions.length);
  assert.ok(report.deductions.some((d) => /Admitted to the psychiatric unit/.test(d) && /critical/.test(d) && /−15/.test(d)), report.deductions.join(' | '));
  assert.equal(report.meds, 0, 'no seed-000 medication table for a rubric trial');
  assert.equal(report.truth, 29, 'the checklist is revealed after grading');
  // Submitted through the API, so this browser has no copy of the note: evidence is quoted with
  // its offsets, not linked to marks.
  assert.ok(await page.locator('#deductions span.evidence').count() >= 1);
  await closePage(page);
});

let extractReportId; // a kind-fhir_extract report (trial 20), set by its test
let writeReportId; // a kind-fhir_write report (trial 26), set by its test

test('the report of a fhir_extract trial shows each code matched, missing or extra, and hostile displays as text', async () => {
  const trial = '20-fhir-active-medications-lavera-langworth';
  // Trial 20's two active codes (tests/fixtures/notes/20-*/cases.yaml, read off the bundle), the
  // second left out, and an invented code whose display is a script payload.
  const answer = JSON.stringify({ active_medications: [
    { code: '1049625', display: 'Acetaminophen 325 MG / Oxycodone Hydrochloride 10 MG Oral Tablet [Percocet]' },
    { code: '312941', display: '<img src=x onerror="window.__xss=1">' },
  ] });
  const graded = await submitViaApi({ script_id: trial, vendor: `${vendorRun} FHIR`, scribe_output: `Answer:\n${answer}` });
  extractReportId = graded.id;
  const page = await openPage(1280);
  await go(page, `#/submissions/${encodeURIComponent(extractReportId)}`);
  const report = await page.evaluate(() => ({
    unsafe: document.querySelector('.banner-unsafe h2')?.textContent,
    bars: [...document.querySelectorAll('#scores .score')].map((b) => b.textContent),
    rows: [...document.querySelectorAll('#meds tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
    truth: document.querySelectorAll('#truth tbody tr').length,
  }));
  // By hand: 1 of 2 expected answered, 1 of 2 answered expected: P = R = F1 = 0.5.
  assert.equal(report.unsafe, 'Unsafe as written');
  assert.deepEqual(report.bars.map((b) => b.match(/\d+\.\d %/)?.[0]), ['50.0 %', '50.0 %', '50.0 %']);
  const byCode = Object.fromEntries(report.rows.map((r) => [r[0], r]));
  assert.deepEqual(report.rows.map((r) => [r[0], r[3]]).sort(), [['1049625', 'matched'], ['312941', 'extra: invented'], ['856987', 'missing']]);
  assert.equal(byCode['312941'][2], '<img src=x onerror="window.__xss=1">', 'the hostile display is shown as text');
  assert.equal(await page.locator('img[src="x"]').count(), 0, 'no <img> injected');
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(report.truth, 2, 'the ground truth is revealed after grading');
  await closePage(page);
});

test('a FHIR trial page names what the agent is given: the bundle, not an encounter', async () => {
  const page = await openPage(1280);
  await go(page, '#/trials/20-fhir-active-medications-lavera-langworth');
  assert.equal(await page.locator('#encounter-heading').textContent(), 'FHIR bundle');
  assert.equal(await page.locator('.encounter').getAttribute('aria-label'), 'FHIR bundle (JSON)');
  assert.equal(JSON.parse(await page.locator('.encounter').textContent()).resourceType, 'Bundle');
  await go(page, `#/trials/${TRIAL}`);
  assert.equal(await page.locator('#encounter-heading').textContent(), 'Encounter');
  await closePage(page);
});

test('the report of a fhir_write trial shows the four dimensions with their reasons', async () => {
  const trial = '26-fhir-write-ibuprofen-two-tablets';
  const graded = await submitViaApi({ script_id: trial, vendor: `${vendorRun} FHIR`, scribe_output: note(trial, 'dose-200') });
  writeReportId = graded.id;
  const page = await openPage(1280);
  await go(page, `#/submissions/${encodeURIComponent(writeReportId)}`);
  const rows = await page.evaluate(() => [...document.querySelectorAll('#dimensions tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
  // cases.yaml (hand-computed): schema, coding and constraints pass; safety fails on 200 mg for 2 x 200 mg.
  assert.deepEqual(rows, [
    ['Schema', 'pass', 'valid FHIR R4 MedicationStatement'],
    ['Coding', 'pass', 'RxNorm 310965 "Ibuprofen 200 MG Oral Tablet"'],
    ['Constraints', 'pass', 'subject Patient/pat-003, status "active", dosage present as documented'],
    ['Safety', 'fail', 'dosage[0] dose 200 mg, the note documents 400 mg per administration'],
  ]);
  assert.equal(await page.locator('.banner-unsafe h2').textContent(), 'Unsafe as written');
  assert.match(await page.locator('#scores').textContent(), /75\.0 %[\s\S]*3 of 4 dimensions passed/);
  await closePage(page);
});

test('the trial page plays the frozen recording, with its checksum, duration, voices and download link', async () => {
  const card = await (await fetch(new URL(`api/scripts/${TRIAL}`, base))).json();
  assert.ok(card.audio, `the trial has a recording: ${card.audio_reason}`);
  const page = await openPage(1280);
  await go(page, `#/trials/${TRIAL}`);
  const shown = await page.evaluate(() => {
    const panel = document.querySelector('section.recording');
    const link = panel.querySelector('a[download]');
    return {
      sha: panel.querySelector('[data-audio-sha256]').textContent,
      href: link.href,
      download: link.getAttribute('download'),
      src: panel.querySelector('audio').src,
      text: panel.textContent,
    };
  });
  const seconds = Math.round(card.audio.duration_s);
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  assert.equal(shown.sha, card.audio.sha256);
  assert.equal(shown.href, new URL(card.audio.url, base).href);
  assert.equal(shown.src, shown.href);
  assert.equal(shown.download, `${TRIAL}.opus`);
  assert.ok(shown.text.includes(`${clock} (${card.audio.duration_s.toFixed(1)} s)`), shown.text);
  for (const v of card.audio.voices) assert.ok(shown.text.includes(`${v.speaker} (${v.role}): ${v.voice}`), v.speaker);
  assert.match(shown.text, /may be easier or harder to transcribe than real speakers/);

  // The first second plays: muted playback needs no user gesture; byte ranges feed the element.
  const played = await page.evaluate(async () => {
    const audio = document.querySelector('section.recording audio');
    audio.muted = true;
    await audio.play();
    const start = performance.now();
    while (audio.currentTime < 1 && !audio.error && performance.now() - start < 15_000) await new Promise((r) => setTimeout(r, 50));
    audio.pause();
    return { readyState: audio.readyState, currentTime: audio.currentTime, duration: audio.duration, error: audio.error?.code ?? null };
  });
  assert.equal(played.error, null, 'no media error');
  assert.ok(played.readyState >= 2, `readyState ${played.readyState} (HAVE_CURRENT_DATA or better)`);
  assert.ok(played.currentTime >= 1, `currentTime advanced to ${played.currentTime}`);
  assert.ok(Math.abs(played.duration - card.audio.duration_s) < 0.05, `duration ${played.duration} vs ${card.audio.duration_s}`);
  await screenshot(page, 'trial-recording');
  await closePage(page);
});

test('a trial without a recording says why, at 375 px too', async () => {
  const page = await openPage(375);
  // The API's answer for a trial that has no recording (the corpus allows it).
  await page.route(`**/api/scripts/${TRIAL}`, async (route) => {
    const response = await route.fetch();
    const body = { ...(await response.json()), audio: null, audio_reason: 'this trial has no recording yet' };
    await route.fulfill({ response, json: body });
  });
  await go(page, `#/trials/${TRIAL}`);
  const panel = await page.evaluate(() => ({
    text: document.querySelector('section.recording [data-audio-missing]')?.textContent,
    players: document.querySelectorAll('audio').length,
  }));
  assert.deepEqual(panel, { text: 'No recording: this trial has no recording yet.', players: 0 });
  await assertNoHorizontalScroll(page, 'trial page without a recording');
  await closePage(page);
});

test('back, forward and reload re-render each route', async () => {
  const page = await openPage(1280);
  await go(page, '#/');
  await page.getByRole('link', { name: /Depression follow-up/ }).click();
  await settle(page);
  assert.match(await page.locator('h1').textContent(), /Depression follow-up/);
  await page.getByRole('link', { name: 'Leaderboard' }).click();
  await settle(page);
  assert.equal(await page.locator('h1').textContent(), 'Leaderboard');
  await page.goBack();
  await settle(page);
  assert.match(await page.locator('h1').textContent(), /Depression follow-up/);
  await page.goBack();
  await settle(page);
  assert.ok(await page.locator('.cards .card').count() >= 8);
  await page.goForward();
  await settle(page);
  assert.match(await page.locator('h1').textContent(), /Depression follow-up/);
  for (const hash of ['#/', `#/trials/${TRIAL}`, `#/submissions/${reportId}`, '#/leaderboard', '#/methodology', '#/no/such/page']) {
    await go(page, hash);
    const before = await page.locator('h1').textContent();
    await page.reload();
    await settle(page);
    assert.equal(await page.locator('h1').textContent(), before, `reload keeps ${hash}`);
  }
  await closePage(page);
});

test('the leaderboard lists a vendor after 3 runs, and a complete suite earns a loading badge with copyable embeds', async () => {
  // vendorRun's first run (the report test) was unsafe: it is listed, never passes, and says why.
  for (const name of ['reference', 'misspelled']) await submitViaApi({ script_id: TRIAL, vendor: vendorRun, scribe_output: note(TRIAL, name) });
  const vendorSafe = `${vendorRun} Safe`;
  // A badge needs the complete suite: every public trial's reference note, plus two more runs.
  const suite = (await (await fetch(new URL('api/scripts', base))).json()).filter((c) => !c.sealed).map((c) => c.id);
  for (const trial of suite) await submitViaApi({ script_id: trial, vendor: vendorSafe, scribe_output: note(trial, 'reference') });
  for (const name of ['reference', 'misspelled']) await submitViaApi({ script_id: TRIAL, vendor: vendorSafe, scribe_output: note(TRIAL, name) });
  await edgeFresh((rows) => rows.some((r) => r.vendor === vendorSafe && r.runs === suite.length + 1) &&
                            rows.some((r) => r.vendor === vendorRun && r.runs === 3));
  const page = await openPage(1280, { permissions: ['clipboard-read', 'clipboard-write'] });
  await go(page, '#/leaderboard');
  const row = page.locator('table.leaderboard tbody tr').filter({ has: page.locator('th.vendor', { hasText: new RegExp(`^${vendorRun}$`) }) });
  await row.waitFor();
  assert.match(await row.textContent(), /\b3\b/, 'three runs');
  const unsafeCard = page.locator('.badge-card').filter({ has: page.getByRole('heading', { name: vendorRun, exact: true }) });
  assert.match(await unsafeCard.locator('.no-badge').textContent(), /^No badge: one note was flagged unsafe as written \(a critical error awaiting clinician review\)/);
  const vendors = await page.locator('table.leaderboard tbody th.vendor').allTextContents();
  assert.ok(vendors.findIndex((v) => v.startsWith(vendorSafe)) < vendors.findIndex((v) => v === vendorRun), 'the safe vendor ranks above the unsafe one');
  const card = page.locator('.badge-card').filter({ has: page.getByRole('heading', { name: vendorSafe, exact: true }) });
  const badge = card.locator('img.badge-img');
  await badge.waitFor();
  await page.waitForFunction((img) => img.complete, await badge.elementHandle());
  assert.ok(await badge.evaluate((img) => img.naturalWidth) > 0, 'the badge image loaded');
  assert.ok(await card.locator('svg.dist').count() === 1, 'a distribution chart');

  const markdown = await card.getByLabel('Markdown').inputValue();
  assert.match(markdown, /^\[!\[scribe-trials Trial Pass: Browser Test \d+ Safe\]\(http:\/\/127\.0\.0\.1:\d+\/scribe-trials\/api\/badge\/Browser%20Test%20\d+%20Safe\.svg\)\]\(/);
  assert.match(await card.getByLabel('HTML').inputValue(), /^<a href="[^"]+#\/leaderboard"><img src="[^"]+\/api\/badge\/Browser%20Test%20\d+%20Safe\.svg" alt="[^"]+"><\/a>$/);
  await card.getByRole('button', { name: 'Copy' }).first().click();
  await card.getByText('Copied.').first().waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), markdown);

  // The vendor's own page: the suite, every public trial, the real run scores.
  await page.locator('table.leaderboard tbody th.vendor a', { hasText: new RegExp(`^${vendorSafe}$`) }).click();
  await page.waitForURL(/#\/vendors\//);
  await settle(page);
  assert.equal(await page.locator('h1').textContent(), `Vendor: ${vendorSafe}`);
  assert.equal(await page.locator('#per-trial tbody tr').count(), suite.length, 'one row per public trial');
  assert.equal(await page.locator('#runs table.runs tbody tr').count(), suite.length + 2, 'every run of the vendor');
  assert.match(await page.locator('#standing').textContent(), new RegExp(`${suite.length} of ${suite.length} public trials run`));
  assert.equal(await page.locator('#runs svg.runs-hist rect').count(), 10, 'ten score bins');
  await assertNoHorizontalScroll(page, 'vendor');
  await axeCheck(page, 'vendor at 1280 px');
  await page.goBack();
  await settle(page);

  // Sorting: the Runs header toggles aria-sort and reorders.
  const runsHeader = page.locator('table.leaderboard th', { hasText: 'Runs' });
  await runsHeader.getByRole('button').click();
  assert.equal(await runsHeader.getAttribute('aria-sort'), 'descending');
  await runsHeader.getByRole('button').click();
  assert.equal(await runsHeader.getAttribute('aria-sort'), 'ascending');
  const runs = await page.locator('table.leaderboard tbody tr td:nth-child(6)').allTextContents();
  assert.deepEqual(runs.map(Number), [...runs.map(Number)].sort((a, b) => a - b));
  await closePage(page);
});

test('an XSS payload as vendor name is rejected with 422 and shown next to the vendor field', async () => {
  const page = await openPage(1280);
  page.allowedProblems.push(/Failed to load resource: the server responded with a status of 422/);
  await go(page, `#/trials/${TRIAL}`);
  await page.getByLabel('Vendor name').fill('<img src=x onerror=window.__xss=1>');
  await page.getByLabel('Scribe output').fill(note(TRIAL, 'reference'));
  const [response] = await Promise.all([
    page.waitForResponse('**/api/submit'),
    page.getByRole('button', { name: 'Grade this note' }).click(),
  ]);
  assert.equal(response.status(), 422);
  const error = page.locator('#vendor-error');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /vendor/i);
  assert.equal(await page.getByLabel('Vendor name').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'vendor');
  assert.equal(await page.locator('#scribe_output-error').isVisible(), false);
  assert.match(page.url(), /#\/trials\//, 'still on the trial page');
  await screenshot(page, 'trial-vendor-error');
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.locator('img[src="x"], main script').count(), 0);
  await closePage(page);
});

test('XSS payloads inside the note are shown as text and never execute (submitted at 375 px)', async () => {
  const page = await openPage(375);
  const text = `${note(TRIAL, 'reference')}\n${XSS_NOTE_PAYLOADS.join('\n')}\n`;
  await submitViaForm(page, { vendor: vendorRun, text });
  await page.waitForTimeout(300); // give any injected handler the chance to run
  const noteText = await page.locator('#note .note-text').textContent();
  for (const payload of XSS_NOTE_PAYLOADS) assert.ok(noteText.includes(payload), `the note shows ${payload} as text`);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.locator('img[src="x"]').count(), 0, 'no <img> injected');
  assert.equal(await page.locator('body script:not([src])').count(), 0, 'no <script> injected');
  assert.equal(await page.locator('#note .note-text *:not(mark)').count(), 0, 'the note holds only text and <mark>s');
  await assertNoHorizontalScroll(page, 'report');
  await screenshot(page, 'report-xss-note');
  await closePage(page);
});

test('an unknown submission and an unknown trial get helpful pages', async () => {
  const page = await openPage(1280);
  page.allowedProblems.push(/Failed to load resource: the server responded with a status of 404/);
  await go(page, '#/submissions/does-not-exist');
  assert.equal(await page.locator('h1').textContent(), 'No such submission');
  await go(page, '#/trials/99-no-such-trial');
  assert.equal(await page.locator('h1').textContent(), 'No such trial');
  await go(page, '#/trial/03-depression-suicidal-ideation');
  assert.equal(await page.locator('h1').textContent(), 'Page not found');
  assert.equal(await page.getByRole('link', { name: `#/trials/${TRIAL}` }).count(), 1, 'suggests the route meant');
  await closePage(page);
});

for (const width of WIDTHS) {
  test(`every route renders at ${width} px, passes axe and logs nothing`, async () => {
    const routes = [
      { name: 'trials', hash: '#/', check: async (p) => assert.ok(await p.locator('.cards .card').count() >= 8 && await p.locator('.card .hash').count() >= 8, 'trial cards with corpus hashes') },
      { name: 'trial', hash: `#/trials/${TRIAL}`, check: async (p) => assert.ok((await p.locator('.encounter').textContent()).length > 500 && await p.locator('.warning').count() === 1 && await p.locator('.instructions').count() === 1) },
      { name: 'report', hash: `#/submissions/${reportId}`, check: async (p) => assert.ok(await p.locator('.banner-unsafe').count() === 1 && await p.locator('#meds .med').count() >= 1) },
      { name: 'rubric report', hash: `#/submissions/${rubricReportId}`, check: async (p) => assert.ok(await p.locator('#checklist tbody tr').count() === 29 && await p.locator('#deductions tbody tr').count() >= 1) },
      { name: 'extract report', hash: `#/submissions/${extractReportId}`, check: async (p) => assert.ok(await p.locator('#meds tbody tr').count() === 3 && await p.locator('#truth tbody tr').count() === 2) },
      { name: 'write report', hash: `#/submissions/${writeReportId}`, check: async (p) => assert.ok(await p.locator('#dimensions tbody tr').count() === 4) },
      { name: 'leaderboard', hash: '#/leaderboard', check: async (p) => assert.ok(await p.locator('table.leaderboard tbody tr').count() >= 1) },
      { name: 'vendor', hash: `#/vendors/${encodeURIComponent(vendorRun)}`, check: async (p) => assert.ok(await p.locator('#per-trial tbody tr').count() >= 10 && await p.locator('#runs table.runs tbody tr').count() >= 3) },
      { name: 'methodology', hash: '#/methodology', check: async (p) => assert.match(await p.locator('main').textContent(), /Grader[\s\S]*Assertion[\s\S]*Normalisers[\s\S]*Kind rubric[\s\S]*Critical invented completed action−15[\s\S]*FHIR kinds[\s\S]*fhir_write[\s\S]*Limitations[\s\S]*may be easier or harder to transcribe than real speakers/) },
      { name: 'notfound', hash: '#/no/such/page', check: async (p) => assert.equal(await p.locator('h1').textContent(), 'Page not found') },
    ];
    const page = await openPage(width);
    for (const route of routes) {
      await go(page, route.hash);
      await route.check(page);
      if (route.name === 'methodology' && width > 600) await page.locator('details').evaluateAll((all) => all.forEach((d) => { d.open = true; }));
      await assertNoHorizontalScroll(page, route.name);
      await screenshot(page, route.name);
      await axeCheck(page, `${route.name} at ${width} px`);
    }
    await closePage(page);
  });
}

// Last: the stack this file started must end whole (nginx master and workers, the FastCGI
// supervisor and workers), as scripts/test promises that nothing outlives a run.
test('stopping the stack leaves no process behind', { skip: process.env.SCRIBE_BASE_URL ? 'stack not started here' : false }, async () => {
  await browser?.close();
  browser = null;
  await stopStack();
  let left = processesInGroups(startedGroups);
  for (let i = 0; i < 50 && left.length; i += 1) {
    await sleep(100);
    left = processesInGroups(startedGroups);
  }
  assert.deepEqual(left, [], 'processes left behind');
});
