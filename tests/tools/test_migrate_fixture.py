#!/usr/bin/python3
"""A database made by main before grades were versioned (tests/fixtures/db/main-v2.db, schema
2, written by tests/tools/make_v2_fixture.sh) opens, migrates to the current schema and keeps
every submission; scribe_regrade() then grades every note under the current grader and corpus
and keeps the old grades. Usage: test_migrate_fixture.py <scribe extension>"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(REPO, "build", "scribe")


def sql(db, *statements):
    script = ".bail on\n.load " + EXTENSION + "\n" + "".join(s.rstrip(";") + ";\n" for s in statements)
    done = subprocess.run(["sqlite3", "-batch", db], input=script, text=True, capture_output=True, cwd=REPO, timeout=120)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout.splitlines()


class MigrateFromV2(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="scribe-migrate-")
        self.db = os.path.join(self.dir, "data.db")
        shutil.copy(os.path.join(REPO, "tests", "fixtures", "db", "main-v2.db"), self.db)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_every_submission_survives_and_is_regraded(self):
        self.assertEqual(sql(self.db, "PRAGMA user_version"), ["9"])  # loading the extension migrated it
        self.assertEqual(sql(self.db, "SELECT id, vendor, vendor_key, blank, kind FROM submissions ORDER BY id"), [
            "a000000000000001|Acme Scribe|acme scribe|0|note",
            "a000000000000002|Acme Scribe|acme scribe|0|note",
            "a000000000000003|ACME SCRIBE|acme scribe|0|note",
            "a000000000000004|Beta Notes|beta notes|0|note",
            "a000000000000005|Beta Notes|beta notes|1|note",
        ])
        self.assertEqual(sql(self.db, "SELECT count(*) FROM submissions WHERE note_sha256 = scribe_sha256(scribe_output)"), ["5"])
        self.assertEqual(sql(self.db, "SELECT vendor_key, name FROM vendors ORDER BY 1"),
                         ["acme scribe|Acme Scribe", "beta notes|Beta Notes"])
        # Each stored result became the submission's first grade, as it was graded then.
        self.assertEqual(sql(self.db, "SELECT submission_id, grader_version, score_total, unsafe, critical_count FROM grades ORDER BY 1"), [
            "a000000000000001|1.0.0|0.925|0|0",
            "a000000000000002|1.0.0|1.0|0|0",
            "a000000000000003|1.0.0|0.85|1|1",
            "a000000000000004|1.0.0|0.6|0|0",
            "a000000000000005|1.0.0|0.4|0|0",
        ])
        # Old grades are not current: nothing counts until the notes are re-graded.
        rows = sql(self.db, "SELECT scribe_load_corpus('corpus/scripts')", "SELECT count(*) FROM current_grades",
                   "SELECT count(*) FROM counted_runs")
        self.assertEqual(rows[1:], ["0", "0"])
        report = sql(self.db, "SELECT scribe_regrade() ->> '$.submissions', scribe_regrade() ->> '$.already_current'")
        self.assertEqual(report, ["5|5"])  # the first call graded all five; the second found them current
        # Every current grade is what the grader gives the stored note today; the old ones stay.
        self.assertEqual(sql(self.db,
                             "SELECT count(*) FROM current_grades g JOIN submissions s ON s.id = g.submission_id "
                             "WHERE g.score_total = grade_submission(s.script_id, s.scribe_output) ->> '$.score_total' "
                             "AND g.grader_version = scribe_version()"), ["5"])
        self.assertEqual(sql(self.db, "SELECT grader_version, count(*) FROM grades GROUP BY 1 ORDER BY 1"),
                         ["1.0.0|5", sql(self.db, "SELECT scribe_version()")[0] + "|5"])
        # The blank note never counts; the three Acme runs (two spellings) are one vendor.
        self.assertEqual(sql(self.db, "SELECT vendor_key, count(*) FROM counted_runs GROUP BY 1 ORDER BY 1"),
                         ["acme scribe|3", "beta notes|1"])
        self.assertEqual(sql(self.db, "SELECT vendor, runs, trials, suite_trials FROM leaderboard"), [f"Acme Scribe|3|2|{len([n for n in os.listdir(os.path.join(REPO, 'corpus', 'scripts')) if n.endswith('.yaml')])}"])
        # The regrade left the standings table current (every vendor with a counted run: the badges read
        # it too), nothing is dirty.
        self.assertEqual(sql(self.db, "SELECT vendor_key, runs, trials FROM standings"), ["acme scribe|3|2", "beta notes|1|1"])
        self.assertEqual(sql(self.db, "SELECT fresh, (SELECT count(*) FROM standings_dirty) FROM standings_versions"), ["1|0"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
