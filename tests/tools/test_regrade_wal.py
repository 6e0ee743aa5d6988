#!/usr/bin/python3
"""scribe_regrade() on a database file writes its grades through a second connection, a batch per
transaction, while the caller's connection reads the notes. The reads must not pin a snapshot for
the whole regrade: SQLite's checkpoints cannot copy WAL frames past the oldest reader's snapshot,
so the WAL would grow by every grade written (about 1 GB for 100,000 notes) and be checkpointed
serially at the end. Here 1,500 notes are regraded in batches of 50: the WAL file must not grow to
as many frames as there are grades (each grade's 6-9 KB result takes two or three pages; with the
pinned snapshot it grew to 2,872), and every note has its grade. Usage: test_regrade_wal.py <scribe extension>"""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(REPO, "build", "scribe")
NOTES = 1500


def sqlite(db, *statements):
    script = ".load " + EXTENSION + "\n" + "".join(s + ";\n" for s in statements)
    done = subprocess.run(["sqlite3", "-batch", db], input=script, text=True, capture_output=True, cwd=REPO,
                          timeout=300, env=dict(os.environ, SCRIBE_OFFLINE="1"))
    return done.stdout.splitlines(), done.stderr.strip()


class RegradeWal(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="scribe-regrade-wal-")
        self.db = os.path.join(self.dir.name, "store.db")
        # The corpus's reference notes under an old grader version, each made distinct.
        out, err = sqlite(
            self.db, "SELECT scribe_load_corpus('corpus/scripts') IS NOT NULL",
            "CREATE TEMP TABLE notes AS SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, "
            "readfile('tests/fixtures/notes/' || id || '/reference.txt') AS text FROM trials",
            f"WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < {NOTES}) "
            "INSERT INTO submissions (id, script_id, kind, vendor, corpus_hash, grader_version, score_total, score_drug, "
            "score_mental, score_fabrication, unsafe, scribe_output, result) "
            "SELECT printf('%016x', x), n.id, t.kind, 'Vendor ' || (x % 5), t.corpus_hash, '0.0.0', 0.5, 0.5, 0.5, 0.5, 0, "
            "n.text || char(10) || 'Run ' || x || '.', '{}' "
            "FROM i JOIN notes n ON n.k = x % (SELECT count(*) FROM notes) JOIN trials t ON t.id = n.id",
            "SELECT count(*) FROM submissions")
        self.assertEqual((out, err), (["1", str(NOTES)], ""))

    def tearDown(self):
        self.dir.cleanup()

    def test_checkpoints_keep_up_with_the_writer(self):
        wal = self.db + "-wal"
        out, err = sqlite(self.db,
                          "SELECT r ->> '$.graded', r ->> '$.batches' FROM (SELECT scribe_regrade(50) AS r)",
                          # Before this connection closes (the last one to close checkpoints and
                          # deletes the WAL): the frames the WAL file grew to (a checkpointed WAL is
                          # written again from its start, so its size is its high-water mark), and
                          # the grades stored.
                          f"SELECT length(readfile('{wal}')) / (24 + (SELECT page_size FROM pragma_page_size))",
                          "SELECT count(*) FROM submissions s JOIN grades g ON g.submission_id = s.id "
                          "AND g.grader_version = scribe_version()")
        self.assertEqual(err, "")
        self.assertEqual(out[0], f"{NOTES}|{NOTES // 50}")
        self.assertLess(int(out[1]), NOTES, f"the WAL grew to {out[1]} frames for {NOTES} grades")
        self.assertEqual(out[2], str(NOTES))

if __name__ == "__main__":
    unittest.main(verbosity=2)
