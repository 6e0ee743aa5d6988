-- grade.sql — POST /scribe-trials/api/submit, step 1 of 2: grade the note.
-- connection: write (the grader may refresh drug_cache), but no transaction is held: grading
-- runs before submit.sql takes the write lock, so a slow grade never blocks other writers.
-- NULL when the trial does not exist (the program answers 404 and writes nothing).
--
--   SELECT grade_submission('03-depression-suicidal-ideation', 'Sertraline 50 mg daily. No SI.');
SELECT CASE WHEN EXISTS (SELECT 1 FROM trials WHERE id = :script_id)
            THEN grade_submission(:script_id, :scribe_output)
       END AS result;
