-- submit.sql — POST /scribe-trials/api/submit, step 2 of 2: persist the graded result.
-- connection: write. One INSERT (its own transaction): the row carries the corpus hash and
-- grader version from the result, its vendor key, note digest and blank flag (so the trigger
-- submissions_after_insert, sql/schema.sql, need not rewrite the row), and the stored result
-- gains id, vendor and created_at (appended by json_set, or the same text made by the program:
-- committer.h, StoredResultText); the trigger adds the vendor and the first grade. It answers the
-- stored result and its created_at; the program sends the public view of that result (what
-- scribe_public_result gives: a sealed trial's shows only the total, the Unsafe label and the
-- number of critical errors), made on the request thread after the commit, not by the one
-- writer (grade.h, PublicSubmissionText), and GET /api/submissions/:id answers the same.
--
--   :id            16 hex digits chosen by the program: the millisecond, then 20 random bits (committer.h)
--   :vendor        validated vendor name
--   :scribe_output the note as submitted
--   :result        grade.sql's JSON
--   :created_at    the time now, as strftime('%Y-%m-%dT%H:%M:%fZ', 'now') writes it
--   :vendor_key    scribe_vendor_key(:vendor) and
--   :note_sha256   scribe_sha256(:scribe_output), made by the program on the request thread; NULL
--                  to let SQL make them
--   :stored_result json_set(:result, '$.id', :id, '$.vendor', :vendor, '$.created_at', :created_at),
--                  made by the program; NULL to let json_set make it
--   :columns_given 1 when the program gives the result's columns below as json_extract would read
--                  them (extension/sql/result_columns.h); NULL to let json_extract read them
--   :script_id :kind :corpus_hash :grader_version :score_total :score_drug :score_mental
--   :score_fabrication :unsafe
INSERT INTO submissions (id, script_id, kind, vendor, vendor_key, note_sha256, blank, created_at, corpus_hash,
                         grader_version, score_total, score_drug, score_mental, score_fabrication, unsafe,
                         scribe_output, result)
SELECT :id,
       CASE WHEN :columns_given THEN :script_id ELSE json_extract(g.r, '$.script_id') END,
       CASE WHEN :columns_given THEN :kind ELSE json_extract(g.r, '$.kind') END,
       :vendor,
       coalesce(:vendor_key, scribe_vendor_key(:vendor)),
       coalesce(:note_sha256, scribe_sha256(:scribe_output)),
       trim(:scribe_output, ' ' || char(9, 10, 13)) = '',
       :created_at,
       CASE WHEN :columns_given THEN :corpus_hash ELSE json_extract(g.r, '$.corpus_hash') END,
       CASE WHEN :columns_given THEN :grader_version ELSE json_extract(g.r, '$.grader_version') END,
       CASE WHEN :columns_given THEN :score_total ELSE json_extract(g.r, '$.score_total') END,
       CASE WHEN :columns_given THEN :score_drug ELSE json_extract(g.r, '$.score_drug') END,
       CASE WHEN :columns_given THEN :score_mental ELSE json_extract(g.r, '$.score_mental') END,
       CASE WHEN :columns_given THEN :score_fabrication ELSE json_extract(g.r, '$.score_fabrication') END,
       CASE WHEN :columns_given THEN :unsafe ELSE json_extract(g.r, '$.unsafe') END,
       :scribe_output,
       coalesce(:stored_result, json_set(g.r, '$.id', :id, '$.vendor', :vendor, '$.created_at', :created_at))
FROM (SELECT :result AS r) AS g
RETURNING result, created_at;
