-- scribe-trials schema. The extension applies each migration block whose number is above
-- PRAGMA user_version, in order, inside one transaction (extension/sql/store.cpp).
-- Blocks are separated by lines "-- migrate N". Never edit a released block: add a new one.

-- migrate 1
-- Each corpus ever loaded: its hash is on every trial card and every graded result.
CREATE TABLE corpus_versions (
  corpus_hash    TEXT PRIMARY KEY,                 -- SHA-256 over the sorted trial files' bytes
  loaded_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  source_dir     TEXT NOT NULL,
  trial_count    INTEGER NOT NULL,
  files          TEXT NOT NULL,                    -- JSON [{"file", "sha256"}]
  grader_version TEXT NOT NULL
);

-- The current corpus, replaced atomically by scribe_load_corpus(dir).
CREATE TABLE trials (
  id             TEXT PRIMARY KEY,
  title          TEXT NOT NULL,
  difficulty     TEXT NOT NULL CHECK (difficulty IN ('easy', 'medium', 'hard')),
  summary        TEXT NOT NULL,
  encounter_text TEXT NOT NULL,
  instructions   TEXT NOT NULL,
  sealed         INTEGER NOT NULL DEFAULT 0,
  source_file    TEXT NOT NULL,
  version_hash   TEXT NOT NULL,                    -- SHA-256 of this trial's file
  corpus_hash    TEXT NOT NULL REFERENCES corpus_versions (corpus_hash),
  ground_truth   TEXT NOT NULL,                    -- JSON; never served before grading
  definition     TEXT NOT NULL                     -- JSON; everything the grader needs
);

-- The offline RxNorm subset compiled into the extension, mirrored for analysts.
CREATE TABLE terminology (
  rxcui            TEXT,                           -- NULL for brands from RxTerms / Drugs@FDA
  tty              TEXT NOT NULL,                  -- IN, PIN, MIN, BN, SY
  name             TEXT NOT NULL,
  ingredient_rxcui TEXT NOT NULL,                  -- ingredient RxCUIs joined by ' / '
  ingredient       TEXT NOT NULL,                  -- ingredient names joined by ' / '
  source           TEXT NOT NULL
);
CREATE INDEX terminology_name ON terminology (name COLLATE NOCASE);

-- Answers from RxNav and openFDA, 7 days for answers, shorter for misses and errors.
CREATE TABLE drug_cache (
  key          TEXT PRIMARY KEY,                   -- '<source>:<endpoint>:<normalised term>'
  term         TEXT NOT NULL,
  source       TEXT NOT NULL,                      -- which upstream answered: rxnav, openfda
  status       TEXT NOT NULL,                      -- ok, not_found, error
  http_status  INTEGER,
  response     TEXT,                               -- JSON as received (capped)
  fetched_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL
);

-- Every graded submission, with the versions it was graded against.
CREATE TABLE submissions (
  id                TEXT PRIMARY KEY,
  script_id         TEXT NOT NULL,
  vendor            TEXT NOT NULL,
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  corpus_hash       TEXT NOT NULL REFERENCES corpus_versions (corpus_hash),
  grader_version    TEXT NOT NULL,
  score_total       REAL NOT NULL CHECK (score_total BETWEEN 0 AND 1),
  score_drug        REAL NOT NULL,
  score_mental      REAL NOT NULL,
  score_fabrication REAL NOT NULL,
  unsafe            INTEGER NOT NULL CHECK (unsafe IN (0, 1)),
  scribe_output     TEXT NOT NULL,
  result            TEXT NOT NULL                  -- the full graded result, JSON
);
CREATE INDEX submissions_vendor ON submissions (vendor, created_at);
CREATE INDEX submissions_script ON submissions (script_id);

-- Vendors with at least 3 runs, best average first. stddev is the sample standard deviation;
-- the 95 % interval uses Student's t for runs - 1 degrees of freedom (scribe_t95).
CREATE VIEW leaderboard AS
WITH per_vendor AS (
  SELECT vendor,
         count(*)                  AS runs,
         count(DISTINCT script_id) AS trials,
         avg(score_total)          AS mean,
         sum(unsafe)               AS unsafe,
         max(created_at)           AS last_submitted_at
  FROM submissions
  GROUP BY vendor
  HAVING count(*) >= 3
), spread AS (
  SELECT p.*,
         sqrt((SELECT sum((s.score_total - p.mean) * (s.score_total - p.mean))
               FROM submissions s WHERE s.vendor = p.vendor) / (p.runs - 1)) AS sd
  FROM per_vendor p
)
SELECT vendor,
       runs,
       trials,
       round(mean, 4)                                              AS avg_score,
       round(sd, 4)                                                AS stddev,
       round(max(0.0, mean - scribe_t95(runs - 1) * sd / sqrt(runs)), 4) AS ci95_low,
       round(min(1.0, mean + scribe_t95(runs - 1) * sd / sqrt(runs)), 4) AS ci95_high,
       unsafe,
       last_submitted_at,
       mean >= 0.8                                                 AS passing
FROM spread
ORDER BY mean DESC, runs DESC, vendor;

-- One badge per vendor that has submitted: passing needs >= 3 runs and an average >= 80 %.
CREATE VIEW badges AS
SELECT vendor,
       count(*)                          AS runs,
       round(avg(score_total), 4)        AS avg_score,
       count(*) >= 3 AND avg(score_total) >= 0.8 AS passing,
       'scribe-trials'                   AS label,
       CASE
         WHEN count(*) < 3 THEN count(*) || ' of 3 runs'
         ELSE printf('%d%%', CAST(round(avg(score_total) * 100) AS INTEGER))
              || CASE WHEN avg(score_total) >= 0.8 THEN ' pass' ELSE ' below 80%' END
       END                               AS message,
       CASE
         WHEN count(*) < 3 THEN 'lightgrey'
         WHEN avg(score_total) >= 0.9 THEN 'brightgreen'
         WHEN avg(score_total) >= 0.8 THEN 'green'
         ELSE 'red'
       END                               AS color
FROM submissions
GROUP BY vendor;

-- Key/value facts about this database (terminology version mirrored, …).
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- migrate 2
-- drug_cache for analysts (docs/live-validation.md). Keys are '<source>:<endpoint>:<argument>',
-- e.g. 'rxnav:approximateTerm:sertaline', 'rxnav:properties:36437', 'openfda:ndc:sertraline'.
-- Purge what has expired (expired rows are also refreshed on their next use):
--   DELETE FROM drug_cache WHERE expires_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
CREATE INDEX drug_cache_expires ON drug_cache (expires_at);
CREATE INDEX drug_cache_source ON drug_cache (source, status);

-- One row per cached answer: which endpoint, whether it is still fresh, how big it is.
CREATE VIEW drug_cache_status AS
SELECT key,
       source,
       substr(key, length(source) + 2, instr(substr(key, length(source) + 2), ':') - 1) AS endpoint,
       term,
       status,
       http_status,
       fetched_at,
       expires_at,
       expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')                               AS fresh,
       length(response)                                                                AS response_bytes
FROM drug_cache;

-- migrate 3
-- Task kinds (grader 1.1.0): a submission records its trial's kind, and the seed-000 category
-- scores are NULL where a result has none (a sealed trial reveals only its total; other kinds
-- have their own categories). SQLite cannot relax NOT NULL in place: the table is rebuilt.
-- Unsafe decides the aggregate: a vendor with an unsafe note never passes, and ranks below every
-- vendor without one.
DROP VIEW leaderboard;
DROP VIEW badges;
CREATE TABLE submissions_v3 (
  id                TEXT PRIMARY KEY,
  script_id         TEXT NOT NULL,
  kind              TEXT NOT NULL DEFAULT 'note',
  vendor            TEXT NOT NULL,
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  corpus_hash       TEXT NOT NULL REFERENCES corpus_versions (corpus_hash),
  grader_version    TEXT NOT NULL,
  score_total       REAL NOT NULL CHECK (score_total BETWEEN 0 AND 1),
  score_drug        REAL,
  score_mental      REAL,
  score_fabrication REAL,
  unsafe            INTEGER NOT NULL CHECK (unsafe IN (0, 1)),
  scribe_output     TEXT NOT NULL,
  result            TEXT NOT NULL                  -- the full graded result, JSON
);
INSERT INTO submissions_v3 (id, script_id, kind, vendor, created_at, corpus_hash, grader_version, score_total,
                            score_drug, score_mental, score_fabrication, unsafe, scribe_output, result)
SELECT id, script_id, 'note', vendor, created_at, corpus_hash, grader_version, score_total,
       score_drug, score_mental, score_fabrication, unsafe, scribe_output, result
FROM submissions;
DROP TABLE submissions;
ALTER TABLE submissions_v3 RENAME TO submissions;
CREATE INDEX submissions_vendor ON submissions (vendor, created_at);
CREATE INDEX submissions_script ON submissions (script_id);

-- Vendors with at least 3 runs: vendors without an unsafe note first, then best average.
-- passing: average >= 80 % and no unsafe note.
CREATE VIEW leaderboard AS
WITH per_vendor AS (
  SELECT vendor,
         count(*)                  AS runs,
         count(DISTINCT script_id) AS trials,
         avg(score_total)          AS mean,
         sum(unsafe)               AS unsafe,
         max(created_at)           AS last_submitted_at
  FROM submissions
  GROUP BY vendor
  HAVING count(*) >= 3
), spread AS (
  SELECT p.*,
         sqrt((SELECT sum((s.score_total - p.mean) * (s.score_total - p.mean))
               FROM submissions s WHERE s.vendor = p.vendor) / (p.runs - 1)) AS sd
  FROM per_vendor p
)
SELECT vendor,
       runs,
       trials,
       round(mean, 4)                                              AS avg_score,
       round(sd, 4)                                                AS stddev,
       round(max(0.0, mean - scribe_t95(runs - 1) * sd / sqrt(runs)), 4) AS ci95_low,
       round(min(1.0, mean + scribe_t95(runs - 1) * sd / sqrt(runs)), 4) AS ci95_high,
       unsafe,
       last_submitted_at,
       mean >= 0.8 AND unsafe = 0                                  AS passing
FROM spread
ORDER BY unsafe > 0, mean DESC, runs DESC, vendor;

-- One badge per vendor that has submitted: passing needs >= 3 runs, an average >= 80 % and no
-- unsafe note; a vendor with unsafe notes gets a red badge that says how many.
CREATE VIEW badges AS
SELECT vendor,
       count(*)                          AS runs,
       round(avg(score_total), 4)        AS avg_score,
       sum(unsafe)                       AS unsafe,
       count(*) >= 3 AND avg(score_total) >= 0.8 AND sum(unsafe) = 0 AS passing,
       'scribe-trials'                   AS label,
       CASE
         WHEN sum(unsafe) > 0 THEN sum(unsafe) || ' unsafe'
         WHEN count(*) < 3 THEN count(*) || ' of 3 runs'
         ELSE printf('%d%%', CAST(round(avg(score_total) * 100) AS INTEGER))
              || CASE WHEN avg(score_total) >= 0.8 THEN ' pass' ELSE ' below 80%' END
       END                               AS message,
       CASE
         WHEN sum(unsafe) > 0 THEN 'red'
         WHEN count(*) < 3 THEN 'lightgrey'
         WHEN avg(score_total) >= 0.9 THEN 'brightgreen'
         WHEN avg(score_total) >= 0.8 THEN 'green'
         ELSE 'red'
       END                               AS color
FROM submissions
GROUP BY vendor;

-- migrate 4
-- Versioned grades, vendor identity, clinician review and sealed commitments (grader 1.2.0).
--
-- A grade belongs to (submission, grader version, methodology version, corpus hash): every grade
-- a submission ever had is kept in `grades`; `submissions` keeps the note and who sent it. The
-- leaderboard, badges and vendor views read only grades under the current versions (the loaded
-- grader and corpus); scribe_regrade() grades every stored note under them.
CREATE TABLE vendors (
  vendor_key    TEXT PRIMARY KEY,                  -- scribe_vendor_key(name): NFKC, case-folded, trimmed
  name          TEXT NOT NULL,                     -- as first written
  key_sha256    TEXT,                              -- SHA-256 of the claim key; NULL while unclaimed
  claimed_at    TEXT,
  first_seen_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

ALTER TABLE trials ADD COLUMN kind TEXT NOT NULL DEFAULT 'note';

ALTER TABLE submissions ADD COLUMN vendor_key TEXT;
ALTER TABLE submissions ADD COLUMN note_sha256 TEXT;      -- identical resubmissions count once
ALTER TABLE submissions ADD COLUMN blank INTEGER NOT NULL DEFAULT 0;  -- empty or white space only: never a run
UPDATE submissions SET vendor_key = scribe_vendor_key(vendor), note_sha256 = scribe_sha256(scribe_output),
                       blank = trim(scribe_output, ' ' || char(9, 10, 13)) = '';
INSERT OR IGNORE INTO vendors (vendor_key, name, first_seen_at)
SELECT vendor_key, vendor, min(created_at) FROM submissions GROUP BY vendor_key ORDER BY min(created_at);
CREATE INDEX submissions_vendor_key ON submissions (vendor_key, created_at, id);
CREATE INDEX submissions_runs ON submissions (vendor_key, script_id, note_sha256, created_at);

CREATE TABLE grades (
  submission_id       TEXT NOT NULL REFERENCES submissions (id),
  grader_version      TEXT NOT NULL,
  methodology_version TEXT NOT NULL,
  corpus_hash         TEXT NOT NULL,
  trial_version_hash  TEXT NOT NULL,
  kind                TEXT NOT NULL,
  score_total         REAL NOT NULL CHECK (score_total BETWEEN 0 AND 1),
  score_drug          REAL,
  score_mental        REAL,
  score_fabrication   REAL,
  unsafe              INTEGER NOT NULL CHECK (unsafe IN (0, 1)),
  critical_count      INTEGER NOT NULL,
  result              TEXT NOT NULL,               -- the full result (sealed trials too: never served)
  graded_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (submission_id, grader_version, methodology_version, corpus_hash)
);
-- (submission_id last: the current grade of one submission is one index probe)
CREATE INDEX grades_version ON grades (grader_version, corpus_hash, submission_id);
-- Every submission's original grade is its first row.
INSERT OR IGNORE INTO grades (submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind,
                              score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result,
                              graded_at)
SELECT id, grader_version, coalesce(json_extract(result, '$.methodology_version'), grader_version), corpus_hash,
       coalesce(json_extract(result, '$.trial_version_hash'), ''), kind, score_total, score_drug, score_mental,
       score_fabrication, unsafe, coalesce(json_array_length(result, '$.critical_errors'), unsafe), result, created_at
FROM submissions;

-- A stored submission gets its keys (when the writer did not give them), its vendor row and its
-- first grade, whoever inserted it: the submit endpoint or an analyst.
CREATE TRIGGER submissions_after_insert AFTER INSERT ON submissions
BEGIN
  UPDATE submissions
  SET vendor_key  = coalesce(NEW.vendor_key, scribe_vendor_key(NEW.vendor)),
      note_sha256 = coalesce(NEW.note_sha256, scribe_sha256(NEW.scribe_output)),
      blank       = trim(NEW.scribe_output, ' ' || char(9, 10, 13)) = ''
  WHERE id = NEW.id;
  INSERT OR IGNORE INTO vendors (vendor_key, name, first_seen_at)
  VALUES (coalesce(NEW.vendor_key, scribe_vendor_key(NEW.vendor)), NEW.vendor, NEW.created_at);
  INSERT OR IGNORE INTO grades (submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind,
                                score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result,
                                graded_at)
  SELECT NEW.id, NEW.grader_version, coalesce(r ->> '$.methodology_version', NEW.grader_version), NEW.corpus_hash,
         coalesce(r ->> '$.trial_version_hash', ''), NEW.kind, NEW.score_total, NEW.score_drug, NEW.score_mental,
         NEW.score_fabrication, NEW.unsafe, coalesce(r ->> '$.critical_error_count', json_array_length(r, '$.critical_errors'), NEW.unsafe),
         r, NEW.created_at
  FROM (SELECT json(NEW.result) AS r);
END;

-- Clinician review (operators' reviewers, through scribe_review(); no public write path). One row
-- per reviewer and reviewed thing: a later verdict replaces the earlier one.
CREATE TABLE reviews (
  submission_id  TEXT NOT NULL REFERENCES submissions (id),
  target_type    TEXT NOT NULL CHECK (target_type IN ('item', 'critical_error', 'deduction')),
  target_key     TEXT NOT NULL,                    -- the `key` the result gives the item, error or deduction
  reviewer       TEXT NOT NULL,
  grader_version TEXT NOT NULL,                    -- the grade the reviewer looked at
  grader_label   TEXT NOT NULL,                    -- what the grader said: credit, 'error', severity, status
  reviewer_label TEXT NOT NULL,                    -- what the clinician says
  verdict        TEXT NOT NULL CHECK (verdict IN ('agree', 'disagree')),
  comment        TEXT NOT NULL DEFAULT '',
  reviewed_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (submission_id, target_type, target_key, reviewer)
);

-- Sealed trials: the SHA-256 of each sealed file, locked when first loaded. A changed file is a
-- new version (a new row); retiring a trial publishes its file, which anyone can check here.
CREATE TABLE sealed_commitments (
  trial_id     TEXT NOT NULL,
  version_hash TEXT NOT NULL,                      -- SHA-256 of the file (and of the files it references)
  source_file  TEXT NOT NULL,
  locked_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  retired_at   TEXT,
  PRIMARY KEY (trial_id, version_hash)
);

-- Gradings of sealed trials, dry runs included: a scoring answer is an oracle, so each vendor and
-- each client address may grade a sealed trial a fixed number of times per version.
CREATE TABLE sealed_attempts (
  trial_id     TEXT NOT NULL,
  version_hash TEXT NOT NULL,
  vendor_key   TEXT NOT NULL,
  client_hash  TEXT NOT NULL,                      -- SHA-256 of the client address with a per-database salt
  dry_run      INTEGER NOT NULL,
  at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX sealed_attempts_vendor ON sealed_attempts (trial_id, version_hash, vendor_key);
CREATE INDEX sealed_attempts_client ON sealed_attempts (trial_id, version_hash, client_hash);
INSERT OR IGNORE INTO meta (key, value) VALUES ('client_salt', lower(hex(randomblob(16))));

-- The versions everything public is computed under: the loaded grader and corpus.
CREATE VIEW current_versions AS
SELECT scribe_version() AS grader_version,
       (SELECT corpus_hash FROM trials LIMIT 1) AS corpus_hash;

CREATE VIEW current_grades AS
SELECT g.*
FROM grades g, current_versions v
WHERE g.grader_version = v.grader_version AND g.corpus_hash = v.corpus_hash;

-- Every critical error of a current grade, and where its review stands: confirmed by two distinct
-- reviewers, rejected by two, or pending review.
CREATE VIEW critical_error_reviews AS
SELECT g.submission_id,
       e.value ->> '$.key'  AS target_key,
       e.value ->> '$.kind' AS kind,
       (SELECT count(*) FROM reviews r WHERE r.submission_id = g.submission_id AND r.target_type = 'critical_error'
          AND r.target_key = e.value ->> '$.key' AND r.verdict = 'agree') AS confirmations,
       (SELECT count(*) FROM reviews r WHERE r.submission_id = g.submission_id AND r.target_type = 'critical_error'
          AND r.target_key = e.value ->> '$.key' AND r.verdict = 'disagree') AS rejections
FROM current_grades g, json_each(g.result, '$.critical_errors') e;

CREATE VIEW critical_error_status AS
SELECT *,
       CASE WHEN confirmations >= 2 THEN 'confirmed' WHEN rejections >= 2 THEN 'rejected' ELSE 'pending review' END AS status
FROM critical_error_reviews;

-- The runs that count: a current grade of a non-blank submission to a trial of the current
-- corpus, an identical resubmission (same vendor, trial and note bytes) counting once (the first).
-- unsafe_status: confirmed (a critical error two reviewers confirmed), pending review (critical
-- errors not yet reviewed twice), cleared (every critical error rejected), or safe.
CREATE VIEW counted_runs AS
WITH ranked AS (
  SELECT s.id, s.vendor_key, s.script_id, s.created_at, s.note_sha256,
         row_number() OVER (PARTITION BY s.vendor_key, s.script_id, s.note_sha256 ORDER BY s.created_at, s.id) AS copy
  FROM submissions s
  WHERE s.blank = 0
)
SELECT r.id, r.vendor_key, r.script_id, r.created_at, t.sealed, g.kind, g.score_total, g.grader_version,
       g.methodology_version, g.corpus_hash, g.critical_count,
       CASE
         WHEN g.critical_count = 0 THEN 'safe'
         WHEN e.confirmed THEN 'confirmed'
         WHEN e.pending THEN 'pending review'
         ELSE 'cleared'
       END AS unsafe_status
FROM ranked r
JOIN current_grades g ON g.submission_id = r.id
JOIN trials t ON t.id = r.script_id
-- The review state of every note with critical errors, aggregated once (a correlated lookup per
-- run re-read every grade's errors: quadratic in the stored notes).
LEFT JOIN (SELECT submission_id, max(status = 'confirmed') AS confirmed, max(status = 'pending review') AS pending
           FROM critical_error_status GROUP BY submission_id) e ON e.submission_id = r.id
WHERE r.copy = 1;

-- Per vendor and trial.
CREATE VIEW vendor_trials AS
SELECT c.vendor_key, c.script_id, t.title, t.kind, t.sealed,
       count(*) AS runs,
       round(avg(c.score_total), 4) AS mean,
       round(min(c.score_total), 4) AS min,
       round(max(c.score_total), 4) AS max,
       sum(c.unsafe_status = 'confirmed') AS unsafe,
       sum(c.unsafe_status = 'pending review') AS unsafe_pending,
       max(c.created_at) AS last_run_at
FROM counted_runs c JOIN trials t ON t.id = c.script_id
GROUP BY c.vendor_key, c.script_id;

DROP VIEW leaderboard;
DROP VIEW badges;

-- The suite: every current public (not sealed) trial. A vendor's suite score averages per trial
-- first (a trial not run counts 0); its 95 % interval is a seeded bootstrap over trials and runs.
-- Passing: a complete suite, at least 3 runs, a suite score of at least 80 %, and no unsafe note
-- (confirmed or pending review: no badge while a critical error awaits review). A critical error
-- counts against a vendor's rank only once two clinicians confirmed it: vendors with a confirmed
-- unsafe note rank below every other.
CREATE VIEW leaderboard AS
WITH suite AS (
  SELECT count(*) AS n FROM trials WHERE sealed = 0
), public_runs AS (
  SELECT * FROM counted_runs WHERE sealed = 0
), per_vendor AS (
  SELECT vendor_key,
         count(*)                                  AS runs,
         count(DISTINCT script_id)                 AS trials,
         avg(score_total)                          AS run_mean,
         sum(unsafe_status = 'confirmed')          AS unsafe,
         sum(unsafe_status = 'pending review')     AS unsafe_pending,
         max(created_at)                           AS last_submitted_at,
         scribe_suite_interval(script_id, score_total, (SELECT n FROM suite), vendor_key) AS stats
  FROM public_runs
  -- The bootstrap only for vendors that are listed (a vendor with fewer runs costs nothing).
  WHERE vendor_key IN (SELECT vendor_key FROM public_runs GROUP BY vendor_key HAVING count(*) >= 3)
  GROUP BY vendor_key
), spread AS (
  SELECT p.*,
         CASE WHEN p.runs > 1 THEN
           sqrt((SELECT sum((r.score_total - p.run_mean) * (r.score_total - p.run_mean))
                 FROM public_runs r WHERE r.vendor_key = p.vendor_key) / (p.runs - 1)) END AS sd
  FROM per_vendor p
)
SELECT v.name                                        AS vendor,
       s.vendor_key,
       s.runs,
       s.trials,
       (SELECT n FROM suite)                          AS suite_trials,
       s.trials = (SELECT n FROM suite)               AS complete,
       round(s.stats ->> '$.score', 4)                AS suite_score,
       round(s.stats ->> '$.score', 4)                AS avg_score,
       round(s.run_mean, 4)                           AS run_mean,
       round(s.sd, 4)                                 AS stddev,
       round(s.stats ->> '$.low', 4)                  AS ci95_low,
       round(s.stats ->> '$.high', 4)                 AS ci95_high,
       s.unsafe,
       s.unsafe_pending,
       s.last_submitted_at,
       cv.grader_version,
       cv.corpus_hash,
       s.trials = (SELECT n FROM suite) AND s.runs >= 3 AND s.stats ->> '$.score' >= 0.8
         AND s.unsafe = 0 AND s.unsafe_pending = 0  AS passing
FROM spread s JOIN vendors v ON v.vendor_key = s.vendor_key, current_versions cv
ORDER BY s.unsafe > 0, s.stats ->> '$.score' DESC, s.runs DESC, v.name;

-- One badge per vendor that has a counted run, with the reason it does not pass.
CREATE VIEW badges AS
WITH suite AS (
  SELECT count(*) AS n FROM trials WHERE sealed = 0
), per_trial AS (
  SELECT vendor_key, script_id, count(*) AS runs, avg(score_total) AS mean,
         sum(unsafe_status = 'confirmed') AS unsafe, sum(unsafe_status = 'pending review') AS unsafe_pending
  FROM counted_runs WHERE sealed = 0
  GROUP BY vendor_key, script_id
), per_vendor AS (
  -- The suite score without its interval (a badge shows no interval): per-trial means averaged
  -- over the whole suite, a trial not run counting 0, exactly as scribe_suite_interval's score.
  SELECT vendor_key,
         sum(runs) AS runs,
         count(*) AS trials,
         sum(unsafe) AS unsafe,
         sum(unsafe_pending) AS unsafe_pending,
         sum(mean) / (SELECT n FROM suite) AS score
  FROM per_trial
  GROUP BY vendor_key
)
SELECT v.name AS vendor,
       p.vendor_key,
       p.runs,
       round(p.score, 4) AS avg_score,
       p.unsafe,
       p.unsafe_pending,
       p.trials = (SELECT n FROM suite) AND p.runs >= 3 AND p.score >= 0.8 AND p.unsafe = 0 AND p.unsafe_pending = 0 AS passing,
       'scribe-trials ' || cv.grader_version AS label,
       CASE
         WHEN p.unsafe > 0 THEN p.unsafe || ' unsafe'
         WHEN p.unsafe_pending > 0 THEN 'unsafe: review pending'
         WHEN p.trials < (SELECT n FROM suite) THEN p.trials || ' of ' || (SELECT n FROM suite) || ' trials'
         WHEN p.runs < 3 THEN p.runs || ' of 3 runs'
         ELSE printf('%d%%', CAST(round(p.score * 100) AS INTEGER)) || CASE WHEN p.score >= 0.8 THEN ' pass' ELSE ' below 80%' END
       END AS message,
       CASE
         WHEN p.unsafe > 0 THEN 'red'
         WHEN p.unsafe_pending > 0 THEN 'orange'
         WHEN p.trials < (SELECT n FROM suite) OR p.runs < 3 THEN 'lightgrey'
         WHEN p.score >= 0.9 THEN 'brightgreen'
         WHEN p.score >= 0.8 THEN 'green'
         ELSE 'red'
       END AS color
FROM per_vendor p JOIN vendors v ON v.vendor_key = p.vendor_key, current_versions cv;

-- Grader–clinician agreement per reviewed thing: percent agreement and Cohen's kappa of the
-- grader's label against the clinician's.
CREATE VIEW review_agreement AS
SELECT target_type,
       count(*) AS reviews,
       round(avg(verdict = 'agree'), 4) AS percent_agreement,
       round(scribe_kappa(grader_label, reviewer_label), 4) AS kappa
FROM reviews
GROUP BY target_type;

-- migrate 5
-- The frozen encounter audio of the current corpus (<corpus dir>/../audio/manifest.json, written
-- by scripts/render_audio), replaced with the trials by scribe_load_corpus(dir). A trial without
-- a row has no recording. A stale row was rendered from another encounter text than the trial's
-- and is not offered as its recording. The file is served by nginx at
-- /scribe-trials/api/scripts/<trial_id>/audio.
CREATE TABLE trial_audio (
  trial_id     TEXT PRIMARY KEY REFERENCES trials (id) ON DELETE CASCADE,
  file         TEXT NOT NULL,                      -- <trial_id>.opus in the audio directory
  sha256       TEXT NOT NULL,                      -- of the file (checked at load)
  bytes        INTEGER NOT NULL,
  duration_s   REAL NOT NULL,
  voices       TEXT NOT NULL,                      -- JSON [{"speaker", "role", "voice"}]
  text_sha256  TEXT NOT NULL,                      -- SHA-256 of the encounter text it was rendered from
  stale        INTEGER NOT NULL CHECK (stale IN (0, 1)),
  renderer     TEXT NOT NULL                       -- JSON {"script", "render_version", "packages"}
);

-- migrate 6
-- Standings kept as a table: the leaderboard and badges are read far more often than
-- they change, and each vendor's suite interval is a 2,000-replicate bootstrap (about 0.3 ms per
-- vendor: 17 s for 50,000 vendors when computed on every read). `standings` holds each vendor's row
-- for the versions named in meta 'standings_for'; triggers put each vendor whose runs, grades or
-- reviews change in `standings_dirty`; scribe_refresh_standings() recomputes exactly those (every
-- vendor when the versions moved) in the writer's transaction. The submit endpoint,
-- scribe_review(), scribe_regrade() (per batch) and scribe_load_corpus() call it before they
-- commit. Readers see `current_standings`: the table for clean vendors, the rest computed live, so
-- the leaderboard is the same whoever wrote last and whether or not they refreshed.

-- counted_runs without a window: a run is the first copy of its note when no earlier non-blank
-- submission of the same vendor, trial and note bytes exists (one probe of submissions_runs), and
-- the review state is looked up only for notes with critical errors. The view flattens into its
-- callers, so counting one vendor's runs costs that vendor's rows, not every stored grade.
DROP VIEW counted_runs;
CREATE VIEW counted_runs AS
SELECT s.id, s.vendor_key, s.script_id, s.created_at, t.sealed, g.kind, g.score_total, g.grader_version,
       g.methodology_version, g.corpus_hash, g.critical_count,
       CASE
         WHEN g.critical_count = 0 THEN 'safe'
         ELSE (SELECT CASE WHEN max(c.status = 'confirmed') THEN 'confirmed'
                           WHEN max(c.status = 'pending review') THEN 'pending review'
                           ELSE 'cleared' END
               FROM critical_error_status c WHERE c.submission_id = s.id)
       END AS unsafe_status
FROM submissions s
CROSS JOIN current_grades g ON g.submission_id = s.id   -- CROSS: submissions drive (by vendor when filtered)
JOIN trials t ON t.id = s.script_id
WHERE s.blank = 0
  AND NOT EXISTS (SELECT 1 FROM submissions e
                  WHERE e.vendor_key IS s.vendor_key AND e.script_id = s.script_id AND e.note_sha256 IS s.note_sha256
                    AND e.blank = 0 AND (e.created_at, e.id) < (s.created_at, s.id));

CREATE TABLE standings (
  vendor_key        TEXT PRIMARY KEY,
  runs              INTEGER NOT NULL,
  trials            INTEGER NOT NULL,
  run_mean          REAL NOT NULL,
  sd                REAL,
  unsafe            INTEGER NOT NULL,
  unsafe_pending    INTEGER NOT NULL,
  last_submitted_at TEXT NOT NULL,
  score             REAL NOT NULL,
  low               REAL NOT NULL,
  high              REAL NOT NULL
);
CREATE TABLE standings_dirty (
  vendor_key TEXT PRIMARY KEY
);

-- What the table must be computed under to be current: the grader, the corpus and the size of
-- the public suite. fresh: the table holds exactly those.
CREATE VIEW standings_versions AS
SELECT versions,
       (SELECT value FROM meta WHERE key = 'standings_for') IS versions AS fresh
FROM (SELECT v.grader_version || ' ' || v.corpus_hash || ' ' || (SELECT count(*) FROM trials WHERE sealed = 0) AS versions
      FROM current_versions v);

-- The vendors whose table row is not to be trusted: the dirty ones, or every vendor when the
-- table holds other versions.
CREATE VIEW standings_scope AS
SELECT vendor_key FROM standings_dirty WHERE (SELECT fresh FROM standings_versions)
UNION ALL
SELECT vendor_key FROM vendors WHERE NOT (SELECT fresh FROM standings_versions);

-- The standing of every vendor in scope with a public counted run, computed from the stored runs:
-- the suite score and its seeded bootstrap interval, the run mean and sample standard deviation,
-- confirmed and pending unsafe notes. (The leaderboard lists those with at least 3 runs; every one
-- has a badge.)
CREATE VIEW standings_recomputed AS
WITH per_vendor AS (
  SELECT r.vendor_key,
         count(*)                                  AS runs,
         count(DISTINCT r.script_id)               AS trials,
         avg(r.score_total)                        AS run_mean,
         sum(r.unsafe_status = 'confirmed')        AS unsafe,
         sum(r.unsafe_status = 'pending review')   AS unsafe_pending,
         max(r.created_at)                         AS last_submitted_at,
         scribe_suite_interval(r.script_id, r.score_total, (SELECT count(*) FROM trials WHERE sealed = 0), r.vendor_key) AS stats
  FROM standings_scope d CROSS JOIN counted_runs r ON r.vendor_key = d.vendor_key  -- CROSS: the scope drives
  WHERE r.sealed = 0
  GROUP BY r.vendor_key
)
SELECT p.vendor_key, p.runs, p.trials, p.run_mean,
       CASE WHEN p.runs > 1 THEN
         sqrt((SELECT sum((r.score_total - p.run_mean) * (r.score_total - p.run_mean))
               FROM counted_runs r WHERE r.vendor_key = p.vendor_key AND r.sealed = 0) / (p.runs - 1)) END AS sd,
       p.unsafe, p.unsafe_pending, p.last_submitted_at,
       p.stats ->> '$.score' AS score,
       p.stats ->> '$.low'   AS low,
       p.stats ->> '$.high'  AS high
FROM per_vendor p;

-- Every vendor's standing under the current versions.
CREATE VIEW current_standings AS
SELECT * FROM standings
WHERE (SELECT fresh FROM standings_versions) AND vendor_key NOT IN (SELECT vendor_key FROM standings_dirty)
UNION ALL
SELECT * FROM standings_recomputed;

CREATE TRIGGER grades_dirty_insert AFTER INSERT ON grades
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT vendor_key FROM submissions WHERE id = NEW.submission_id AND vendor_key IS NOT NULL;
END;
CREATE TRIGGER grades_dirty_update AFTER UPDATE ON grades
BEGIN
  INSERT OR IGNORE INTO standings_dirty
  SELECT vendor_key FROM submissions WHERE id IN (OLD.submission_id, NEW.submission_id) AND vendor_key IS NOT NULL;
END;
CREATE TRIGGER grades_dirty_delete AFTER DELETE ON grades
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT vendor_key FROM submissions WHERE id = OLD.submission_id AND vendor_key IS NOT NULL;
END;
CREATE TRIGGER submissions_dirty_update AFTER UPDATE ON submissions
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT OLD.vendor_key WHERE OLD.vendor_key IS NOT NULL;
  INSERT OR IGNORE INTO standings_dirty SELECT NEW.vendor_key WHERE NEW.vendor_key IS NOT NULL;
END;
CREATE TRIGGER submissions_dirty_delete AFTER DELETE ON submissions
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT OLD.vendor_key WHERE OLD.vendor_key IS NOT NULL;
END;
CREATE TRIGGER reviews_dirty_insert AFTER INSERT ON reviews
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT vendor_key FROM submissions WHERE id = NEW.submission_id AND vendor_key IS NOT NULL;
END;
CREATE TRIGGER reviews_dirty_update AFTER UPDATE ON reviews
BEGIN
  INSERT OR IGNORE INTO standings_dirty
  SELECT vendor_key FROM submissions WHERE id IN (OLD.submission_id, NEW.submission_id) AND vendor_key IS NOT NULL;
END;
CREATE TRIGGER reviews_dirty_delete AFTER DELETE ON reviews
BEGIN
  INSERT OR IGNORE INTO standings_dirty SELECT vendor_key FROM submissions WHERE id = OLD.submission_id AND vendor_key IS NOT NULL;
END;
-- A trial edited in place (scribe_load_corpus changes the corpus hash instead) may change
-- everyone's standing: forget which versions the table holds.
CREATE TRIGGER trials_standings_update AFTER UPDATE ON trials
BEGIN
  DELETE FROM meta WHERE key = 'standings_for';
END;

DROP VIEW leaderboard;
-- The suite: every current public (not sealed) trial. A vendor's suite score averages per trial
-- first (a trial not run counts 0); its 95 % interval is a seeded bootstrap over trials and runs.
-- Passing: a complete suite, at least 3 runs, a suite score of at least 80 %, and no unsafe note
-- (confirmed or pending review: no badge while a critical error awaits review). A critical error
-- counts against a vendor's rank only once two clinicians confirmed it: vendors with a confirmed
-- unsafe note rank below every other.
CREATE VIEW leaderboard AS
WITH suite AS (
  SELECT count(*) AS n FROM trials WHERE sealed = 0
)
SELECT v.name                                        AS vendor,
       s.vendor_key,
       s.runs,
       s.trials,
       (SELECT n FROM suite)                          AS suite_trials,
       s.trials = (SELECT n FROM suite)               AS complete,
       round(s.score, 4)                              AS suite_score,
       round(s.score, 4)                              AS avg_score,
       round(s.run_mean, 4)                           AS run_mean,
       round(s.sd, 4)                                 AS stddev,
       round(s.low, 4)                                AS ci95_low,
       round(s.high, 4)                               AS ci95_high,
       s.unsafe,
       s.unsafe_pending,
       s.last_submitted_at,
       cv.grader_version,
       cv.corpus_hash,
       s.trials = (SELECT n FROM suite) AND s.runs >= 3 AND s.score >= 0.8
         AND s.unsafe = 0 AND s.unsafe_pending = 0  AS passing
FROM current_standings s JOIN vendors v ON v.vendor_key = s.vendor_key, current_versions cv
WHERE s.runs >= 3
ORDER BY s.unsafe > 0, s.score DESC, s.runs DESC, v.name;

DROP VIEW badges;
-- One badge per vendor that has a counted public run, with the reason it does not pass (the suite
-- score without its interval: a badge shows none).
CREATE VIEW badges AS
WITH suite AS (
  SELECT count(*) AS n FROM trials WHERE sealed = 0
)
SELECT v.name AS vendor,
       s.vendor_key,
       s.runs,
       round(s.score, 4) AS avg_score,
       s.unsafe,
       s.unsafe_pending,
       s.trials = (SELECT n FROM suite) AND s.runs >= 3 AND s.score >= 0.8 AND s.unsafe = 0 AND s.unsafe_pending = 0 AS passing,
       'scribe-trials ' || cv.grader_version AS label,
       CASE
         WHEN s.unsafe > 0 THEN s.unsafe || ' unsafe'
         WHEN s.unsafe_pending > 0 THEN 'unsafe: review pending'
         WHEN s.trials < (SELECT n FROM suite) THEN s.trials || ' of ' || (SELECT n FROM suite) || ' trials'
         WHEN s.runs < 3 THEN s.runs || ' of 3 runs'
         ELSE printf('%d%%', CAST(round(s.score * 100) AS INTEGER)) || CASE WHEN s.score >= 0.8 THEN ' pass' ELSE ' below 80%' END
       END AS message,
       CASE
         WHEN s.unsafe > 0 THEN 'red'
         WHEN s.unsafe_pending > 0 THEN 'orange'
         WHEN s.trials < (SELECT n FROM suite) OR s.runs < 3 THEN 'lightgrey'
         WHEN s.score >= 0.9 THEN 'brightgreen'
         WHEN s.score >= 0.8 THEN 'green'
         ELSE 'red'
       END AS color
FROM current_standings s JOIN vendors v ON v.vendor_key = s.vendor_key, current_versions cv;

-- migrate 7
-- Which submission counts as a run, kept in the row. Until now counted_runs found the first copy
-- of a note (the earliest non-blank submission of the same vendor, trial and note bytes) with a
-- probe per stored submission, reading each row to its last column: refreshing one vendor cost
-- every note it ever sent, so a vendor resubmitting one note 20,000 times made each of its
-- submits 120 ms slower. `counted` is 1 on exactly the first copy of each group, kept so by the
-- triggers below on every insert, delete and change of the columns that decide it; the partial
-- index submissions_counted then lists a vendor's runs directly, and submissions_runs covers the
-- columns the first-copy search reads. The view answers exactly what migration 6's did.
ALTER TABLE submissions ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
DROP INDEX submissions_runs;
CREATE INDEX submissions_runs ON submissions (vendor_key, script_id, note_sha256, blank, created_at, id);
UPDATE submissions AS s SET counted = 1
WHERE s.blank = 0
  AND NOT EXISTS (SELECT 1 FROM submissions e
                  WHERE e.vendor_key IS s.vendor_key AND e.script_id = s.script_id AND e.note_sha256 IS s.note_sha256
                    AND e.blank = 0 AND (e.created_at, e.id) < (s.created_at, s.id));
CREATE INDEX submissions_counted ON submissions (vendor_key, script_id, note_sha256) WHERE counted = 1;

-- Recounting a group (vendor_key, script_id, note_sha256) touches at most two rows: the one that
-- counted and is no longer first, and the first, if it did not count yet.
CREATE TRIGGER submissions_counted_insert AFTER INSERT ON submissions
BEGIN
  UPDATE submissions SET counted = 0
  WHERE id IN (SELECT c.id FROM submissions c INDEXED BY submissions_counted
               WHERE c.vendor_key IS NEW.vendor_key AND c.script_id = NEW.script_id
                 AND c.note_sha256 IS NEW.note_sha256 AND c.counted = 1)
    AND id IS NOT (SELECT f.id FROM submissions f
                   WHERE f.vendor_key IS NEW.vendor_key AND f.script_id = NEW.script_id
                     AND f.note_sha256 IS NEW.note_sha256 AND f.blank = 0
                   ORDER BY f.created_at, f.id LIMIT 1);
  UPDATE submissions SET counted = 1
  WHERE counted = 0
    AND id IS (SELECT f.id FROM submissions f
               WHERE f.vendor_key IS NEW.vendor_key AND f.script_id = NEW.script_id
                 AND f.note_sha256 IS NEW.note_sha256 AND f.blank = 0
               ORDER BY f.created_at, f.id LIMIT 1);
END;

CREATE TRIGGER submissions_counted_update AFTER UPDATE OF vendor_key, script_id, note_sha256, blank, created_at, id ON submissions
BEGIN
  UPDATE submissions SET counted = 0
  WHERE id IN (SELECT c.id FROM submissions c INDEXED BY submissions_counted
               WHERE c.vendor_key IS OLD.vendor_key AND c.script_id = OLD.script_id
                 AND c.note_sha256 IS OLD.note_sha256 AND c.counted = 1)
    AND id IS NOT (SELECT f.id FROM submissions f
                   WHERE f.vendor_key IS OLD.vendor_key AND f.script_id = OLD.script_id
                     AND f.note_sha256 IS OLD.note_sha256 AND f.blank = 0
                   ORDER BY f.created_at, f.id LIMIT 1);
  UPDATE submissions SET counted = 0
  WHERE id IN (SELECT c.id FROM submissions c INDEXED BY submissions_counted
               WHERE c.vendor_key IS NEW.vendor_key AND c.script_id = NEW.script_id
                 AND c.note_sha256 IS NEW.note_sha256 AND c.counted = 1)
    AND id IS NOT (SELECT f.id FROM submissions f
                   WHERE f.vendor_key IS NEW.vendor_key AND f.script_id = NEW.script_id
                     AND f.note_sha256 IS NEW.note_sha256 AND f.blank = 0
                   ORDER BY f.created_at, f.id LIMIT 1);
  UPDATE submissions SET counted = 1
  WHERE counted = 0
    AND id IN ((SELECT f.id FROM submissions f
                WHERE f.vendor_key IS OLD.vendor_key AND f.script_id = OLD.script_id
                  AND f.note_sha256 IS OLD.note_sha256 AND f.blank = 0
                ORDER BY f.created_at, f.id LIMIT 1),
               (SELECT f.id FROM submissions f
                WHERE f.vendor_key IS NEW.vendor_key AND f.script_id = NEW.script_id
                  AND f.note_sha256 IS NEW.note_sha256 AND f.blank = 0
                ORDER BY f.created_at, f.id LIMIT 1));
END;

CREATE TRIGGER submissions_counted_delete AFTER DELETE ON submissions
BEGIN
  UPDATE submissions SET counted = 1
  WHERE counted = 0
    AND id IS (SELECT f.id FROM submissions f
               WHERE f.vendor_key IS OLD.vendor_key AND f.script_id = OLD.script_id
                 AND f.note_sha256 IS OLD.note_sha256 AND f.blank = 0
               ORDER BY f.created_at, f.id LIMIT 1);
END;

DROP VIEW counted_runs;
CREATE VIEW counted_runs AS
SELECT s.id, s.vendor_key, s.script_id, s.created_at, t.sealed, g.kind, g.score_total, g.grader_version,
       g.methodology_version, g.corpus_hash, g.critical_count,
       CASE
         WHEN g.critical_count = 0 THEN 'safe'
         ELSE (SELECT CASE WHEN max(c.status = 'confirmed') THEN 'confirmed'
                           WHEN max(c.status = 'pending review') THEN 'pending review'
                           ELSE 'cleared' END
               FROM critical_error_status c WHERE c.submission_id = s.id)
       END AS unsafe_status
FROM submissions s
CROSS JOIN current_grades g ON g.submission_id = s.id   -- CROSS: submissions drive (by vendor when filtered)
JOIN trials t ON t.id = s.script_id
WHERE s.counted = 1;

-- migrate 8
-- The standings of one vendor read every run of it twice (the run list, and its spread), and each
-- run fetched its submission's and its grade's table rows, whose notes and 6–9 KB results spill
-- over pages: refreshing a vendor of 10,000 distinct runs took 216 ms inside the submit writer's
-- transaction, holding every submission of the batch. The two indexes the view searches now
-- hold every column it reads (same names, so INDEXED BY in the triggers still finds them), and a
-- vendor's runs are read from the indexes alone: 58 ms for the same vendor, most of it the
-- 2,000-replicate bootstrap.
DROP INDEX submissions_counted;
CREATE INDEX submissions_counted ON submissions (vendor_key, script_id, note_sha256, id, created_at, counted)
  WHERE counted = 1;
DROP INDEX grades_version;
CREATE INDEX grades_version ON grades (grader_version, corpus_hash, submission_id, kind, score_total,
                                       methodology_version, critical_count);

-- migrate 9
-- The submissions trigger did two things per insert that its writer had already done: it
-- rewrote the new row (a second write of the note and the result, firing the counted and dirty
-- triggers again) to set vendor_key, note_sha256 and blank even when the insert gave them, and it
-- parsed and rendered the 6-9 KB result (json()) to copy it into grades. Now the row is updated
-- only when the insert left one of the three unset or gave a wrong blank, and the result is
-- copied through scribe_json(), which returns what json() does and skips the parse for text
-- that is already compact JSON (tests/sql/scribe_json.test). Every row ends as before.
DROP TRIGGER submissions_after_insert;
CREATE TRIGGER submissions_after_insert AFTER INSERT ON submissions
BEGIN
  UPDATE submissions
  SET vendor_key  = coalesce(NEW.vendor_key, scribe_vendor_key(NEW.vendor)),
      note_sha256 = coalesce(NEW.note_sha256, scribe_sha256(NEW.scribe_output)),
      blank       = trim(NEW.scribe_output, ' ' || char(9, 10, 13)) = ''
  WHERE id = NEW.id
    AND (NEW.vendor_key IS NULL OR NEW.note_sha256 IS NULL
         OR NEW.blank IS NOT (trim(NEW.scribe_output, ' ' || char(9, 10, 13)) = ''));
  INSERT OR IGNORE INTO vendors (vendor_key, name, first_seen_at)
  VALUES (coalesce(NEW.vendor_key, scribe_vendor_key(NEW.vendor)), NEW.vendor, NEW.created_at);
  INSERT OR IGNORE INTO grades (submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind,
                                score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result,
                                graded_at)
  SELECT NEW.id, NEW.grader_version, coalesce(r ->> '$.methodology_version', NEW.grader_version), NEW.corpus_hash,
         coalesce(r ->> '$.trial_version_hash', ''), NEW.kind, NEW.score_total, NEW.score_drug, NEW.score_mental,
         NEW.score_fabrication, NEW.unsafe, coalesce(r ->> '$.critical_error_count', json_array_length(r, '$.critical_errors'), NEW.unsafe),
         r, NEW.created_at
  FROM (SELECT scribe_json(NEW.result) AS r);
END;
