#!/usr/bin/python3
"""The functions-only entry point (sqlite3_scribe_functions_init, extension/sql/scribe_ext.cpp)
registers the deterministic functions and aggregates and nothing else: no migration, no table,
no grading, no network. Usage: test_functions_entry.py <scribe extension>"""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(REPO, "build", "scribe")


def sqlite(db, *statements):
    script = ".load " + EXTENSION + " sqlite3_scribe_functions_init\n" + "".join(s + ";\n" for s in statements)
    done = subprocess.run(["sqlite3", "-batch", db], input=script, text=True, capture_output=True, cwd=REPO, timeout=60)
    return done.stdout.splitlines(), done.stderr.strip()


class FunctionsOnly(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="scribe-functions-")
        self.db = os.path.join(self.dir.name, "store.db")

    def tearDown(self):
        self.dir.cleanup()

    def test_pure_functions_work_and_nothing_is_created(self):
        out, err = sqlite(self.db,
                          "SELECT scribe_vendor_key('ＡＣＭＥ Scribe'), scribe_sha256('a')",
                          "SELECT scribe_version() = (SELECT scribe_version())",
                          "CREATE TABLE r (trial TEXT, score REAL)",
                          "INSERT INTO r VALUES ('a', 1.0), ('a', 0.5), ('b', 0.0)",
                          "SELECT round(scribe_suite_interval(trial, score, 2, 'v') ->> '$.score', 4) FROM r",
                          "SELECT group_concat(name) FROM sqlite_schema",
                          "PRAGMA user_version")
        self.assertEqual(err, "")
        # NFKC case fold; SHA-256 of "a"; the suite score (0.75 + 0.0) / 2; only the test's table.
        self.assertEqual(out, ["acme scribe|ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb", "1",
                               "0.375", "r", "0"])

    def test_nothing_that_reads_tables_or_the_network_is_registered(self):
        for call in ("grade_submission('01-x', 'note')", "scribe_load_corpus('corpus/scripts')", "scribe_regrade()",
                     "scribe_refresh_standings()", "rxnorm_lookup('sertraline')"):
            name = call.split("(")[0]
            out, err = sqlite(self.db, "SELECT " + call)
            self.assertEqual(out, [])
            self.assertIn("no such function: " + name, err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
