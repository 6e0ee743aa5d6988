-- refresh_standings.sql — POST /scribe-trials/api/submit, inside the submit's transaction: the
-- standings of the vendors the insert changed (the trigger put them in standings_dirty), so the
-- leaderboard reads a table instead of bootstrapping every vendor (sql/schema.sql, migrate 6).
-- connection: write. Answers scribe_refresh_standings()'s report, which the program ignores.
SELECT scribe_refresh_standings();
