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
