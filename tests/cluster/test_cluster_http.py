"""test_cluster_http.py — the public API served by a one-machine cluster: three store voters
(127.0.0.1-3), two graders (`scribe-fcgi --store`, FastCGI over TCP on 127.0.0.1 and 127.0.0.2)
and one nginx edge with both graders in its upstream groups.

    python3 tests/cluster/test_cluster_http.py -v      (scripts/test-cluster builds and runs it)

In order: a submission answered 201 is readable at once through either grader; the leaderboard
and the badge show new runs within a second; a claimed name's key works on every grader; bad
input gets the single machine's exact errors; 400 submits at 8-way with the store's leader
SIGKILLed (every 201 reads back, no note stored twice); a grader SIGKILLed mid-load (the other
serves on, nothing acknowledged is lost); two voters of three down (submits 503
"store_unavailable", cached reads served stale); everything restarted with the data intact; a
new corpus published and every stored note regraded on the store (`scribe-fcgi --regrade`), row
for row what scribe_regrade() writes on one machine.
Every wait is bounded; every process is stopped at the end, also on failure.
"""

import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
import unittest

from cluster import (EXTENSION, REPO, STORE, TRIALS, EdgeCluster, Edge, Grader, leader_of, note_for, publish,
                     regrade, wait_for, wait_voters)


def versions_lines(grader):
    """The lines of the grader's log (every start) that compare its versions with the store's, and
    any other warning."""
    with open(grader.log, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f
                if line.startswith(("scribe-fcgi: the store counts this grader's versions", "scribe-fcgi: warning: "))]


class ClusterHttp(EdgeCluster):
    prefix = "scribe-cluster-http-"

    # ------------------------------------------------------------------ helpers

    def submit(self, trial, vendor, note, headers=None):
        status, hdrs, body = self.edge.request("POST", "/api/submit",
                                               {"script_id": trial, "vendor": vendor, "scribe_output": note}, headers)
        return status, hdrs, json.loads(body) if body else None

    def get_json(self, path):
        status, hdrs, body = self.edge.request("GET", path)
        return status, hdrs, json.loads(body)

    def load(self, count, vendor, on_answer=None, workers=8):
        """`count` submits through the edge, `workers` at a time: [(status, id or None, marker,
        body)], in completion order."""
        def work(trial, marker):
            status, _, body = self.submit(trial, vendor, note_for(trial, marker))
            return status, body.get("id") if status == 201 else None, marker, body
        return self.submit_notes(count, work, workers, on_answer)

    def check_once(self, answers, vendor):
        """Every 201 reads back through the edge; no note is stored twice; nothing is stored that
        was neither acknowledged nor answered 'may be stored as <id>', but for the requests in
        flight on a grader killed mid-request (nginx's 503 "unavailable": the grader may have
        stored the note before it died, and nobody can say under which id)."""
        rows = self.store_rows("SELECT id, scribe_output FROM submissions WHERE vendor = :v", v=vendor)
        markers = [r[1].rsplit("Visit reference: ", 1)[1].strip() for r in rows]
        self.assertEqual(len(markers), len(set(markers)), "a note was stored twice")
        stored = {r[0] for r in rows}
        acked = {a[1] for a in answers if a[0] == 201}
        self.assertLessEqual(acked, stored, "an acknowledged submission is missing")
        maybe = set()
        for status, _, _, body in answers:
            if status == 503 and body["error"]["code"] == "store_unavailable" and "stored as " in body["error"]["message"]:
                maybe.add(body["error"]["message"].split("stored as ")[1].split(":")[0])
        lost_in_flight = sum(1 for status, _, _, body in answers
                             if status == 503 and body["error"]["code"] == "unavailable")
        self.assertLessEqual(len(stored - acked - maybe), lost_in_flight, "a row nobody was told about")
        for sid in sorted(acked)[:20]:
            self.assertEqual(self.get_json(f"/api/submissions/{sid}")[0], 200)
        return stored

    # ------------------------------------------------------------------ the tests, in order

    def test_1_a_submission_reads_back_at_once_through_either_grader(self):
        status, _, health = self.get_json("/health")
        self.assertEqual((status, health["ok"], health["store"], health["trials"]), (200, True, {"ok": True}, 40))
        # Each grader said at start that the store counts what it grades.
        version, corpus = self.store_rows("SELECT grader_version, corpus_hash FROM current_versions")[0]
        for g in self.graders:
            self.assertEqual(versions_lines(g), [f"scribe-fcgi: the store counts this grader's versions "
                                                 f"(grader {version}, corpus {corpus})"])
        trial = TRIALS[0]
        status, headers, body = self.submit(trial, "Acme Scribe", note_for(trial, "first"))
        self.assertEqual(status, 201, body)
        self.assertEqual(headers["location"], f"/scribe-trials/api/submissions/{body['id']}")
        # two reads: nginx's round robin sends them to the two graders
        for _ in range(2):
            status, _, stored = self.get_json(f"/api/submissions/{body['id']}")
            self.assertEqual(status, 200)
            self.assertEqual((stored["id"], stored["vendor"], stored["score_total"], stored["current"]),
                             (body["id"], "Acme Scribe", body["score_total"], True))
        self.assertEqual(self.get_json("/api/submissions/0123456789abcdef")[:3:2],
                         (404, {"error": {"code": "unknown_submission", "message": "unknown submission '0123456789abcdef'"}}))

    def test_2_leaderboard_and_badge_show_new_runs_within_a_second(self):
        vendor = "Steady Notes"
        status, _, body = self.get_json("/api/leaderboard")
        self.assertNotIn(vendor, [row["vendor"] for row in body])
        for k in range(3):
            self.assertEqual(self.submit(TRIALS[k], vendor, note_for(TRIALS[k], f"lb{k}"))[0], 201)
        acked = time.monotonic()

        def listed():
            status, _, rows = self.get_json("/api/leaderboard")
            return status == 200 and any(r["vendor"] == vendor and r["runs"] == 3 for r in rows)
        wait_for("the leaderboard to list the vendor", listed, limit=5, every=0.05)
        self.assertLessEqual(time.monotonic() - acked, 1.1)
        status, headers, svg = self.edge.request("GET", f"/api/badge/{vendor.replace(' ', '%20')}.svg")
        self.assertEqual((status, headers["content-type"]), (404, "image/svg+xml"))  # 3 runs, not passing yet: says why
        self.assertIn(b"<svg", svg)

    def test_3_a_claimed_name_needs_its_key_on_every_grader(self):
        status, _, body = self.edge.request("POST", "/api/vendors/Keyed%20Vendor/claim")
        self.assertEqual(status, 201)
        key = json.loads(body)["key"]
        status, _, again = self.edge.request("POST", "/api/vendors/KEYED%20vendor/claim")
        self.assertEqual((status, json.loads(again)),
                         (409, {"error": {"code": "vendor_claimed", "message":
                                          "vendor 'KEYED vendor' is already claimed; its key was shown once, to whoever claimed it"}}))
        trial = TRIALS[1]
        for _ in range(2):  # both graders
            status, _, refused = self.submit(trial, "Keyed Vendor", note_for(trial, secrets.token_hex(4)))
            self.assertEqual((status, refused["error"]["code"]), (403, "vendor_claimed"))
            status, _, ok = self.submit(trial, "Keyed Vendor", note_for(trial, secrets.token_hex(4)),
                                        {"Authorization": f"Bearer {key}"})
            self.assertEqual(status, 201, ok)

    def test_4_bad_input_gets_the_single_machines_errors(self):
        status, _, body = self.edge.request("POST", "/api/submit", b'{"script_id": ', {"Content-Type": "application/json"})
        self.assertEqual((status, json.loads(body)),
                         (400, {"error": {"code": "malformed_json", "message": "request body is not valid JSON"}}))
        status, _, body = self.submit("99-no-such-trial", "Acme Scribe", "A note.")
        self.assertEqual((status, body), (404, {"error": {"code": "unknown_trial", "message": "unknown trial '99-no-such-trial'"}}))
        status, _, body = self.get_json("/api/vendors/%3Cscript%3E")
        self.assertEqual(status, 404)

    def test_4a_a_grader_whose_corpus_is_not_published_stores_nothing(self):
        """A grader started with a corpus the store does not have (its version was not published
        first) grades, but stores nothing and says why."""
        stray = Grader(2, self.root, self.stores, corpus="tests/fixtures/corpus_suite")
        stray.start()
        edge = Edge(os.path.join(self.root, "stray"), [stray])
        try:
            edge.start()
            status, _, body = edge.request("POST", "/api/submit", {"script_id": "01-sore-throat", "vendor": "Stray",
                                                                   "scribe_output": "Amoxicillin 500 mg three times daily."})
            body = json.loads(body)
            self.assertEqual((status, body["error"]["code"]), (503, "corpus_not_published"), body)
            self.assertRegex(body["error"]["message"],
                             r"^this grader's corpus [0-9a-f]{64} is not published on the store of record; nothing was stored$")
            self.assertEqual(self.store_rows("SELECT count(*) FROM submissions WHERE vendor = 'Stray'"), [[0]])
            # … and it said so at start.
            stray_corpus = json.loads(edge.request("GET", "/health")[2])["corpus_hash"]
            current = self.store_rows("SELECT corpus_hash FROM current_versions")[0][0]
            self.assertEqual(versions_lines(stray), [
                f"scribe-fcgi: warning: this grader's corpus {stray_corpus} is not the store's current corpus "
                f"({current}): what it stores is not counted in the standings (and its submits answer 503 "
                "corpus_not_published if the store has never had its corpus); start it with the store's corpus, or "
                "publish this one (cluster/publish)"])
        finally:
            edge.stop()
            stray.stop()

    def test_5_store_leader_killed_mid_load(self):
        killed = {}

        def on_answer(n):
            if n == 100 and not killed:
                killed["node"] = leader = leader_of(self.stores)
                leader.kill()

        answers = self.load(400, "Failover Vendor", on_answer)
        self.assertIn("node", killed)
        codes = {}
        for status, _, _, body in answers:
            key = status if status == 201 else (status, body["error"]["code"])
            codes[key] = codes.get(key, 0) + 1
        print(f"\n  400 submits through the edge, store leader {killed['node'].host} killed after 100: {codes}",
              file=sys.stderr)
        self.assertEqual(set(codes) - {201, (503, "store_unavailable")}, set(), codes)
        killed["node"].start()
        wait_voters(self.stores, 3)
        self.check_once(answers, "Failover Vendor")

    def test_6_grader_killed_mid_load(self):
        killed = {}

        def on_answer(n):
            if n == 60 and not killed:
                killed["grader"] = self.graders[1]
                self.graders[1].kill()

        answers = self.load(300, "Grader Loss Vendor", on_answer)
        codes = {}
        for status, _, _, body in answers:
            key = status if status == 201 else (status, body["error"]["code"])
            codes[key] = codes.get(key, 0) + 1
        print(f"\n  300 submits through the edge, grader {killed['grader'].host} killed after 60: {codes}", file=sys.stderr)
        # in flight on the killed grader when it died: nginx's 503 "unavailable" (its 502 in the
        # API's shape), at most one per client; then the other grader takes everything
        self.assertEqual(set(codes) - {201, (503, "unavailable")}, set(), codes)
        self.assertLessEqual(codes.get((503, "unavailable"), 0), 8)
        self.check_once(answers, "Grader Loss Vendor")
        self.graders[1].start()

    def test_7_two_voters_down_submits_503_reads_stale(self):
        # a cached read first, so the edge has something to serve
        self.assertEqual(self.get_json("/api/leaderboard")[0], 200)
        leader = leader_of(self.stores)
        other = next(n for n in self.stores if n is not leader)
        leader.kill()
        other.kill()
        time.sleep(1.1)  # the cached entry expires (X-Accel-Expires: the current second)
        trial = TRIALS[2]
        status, _, body = self.submit(trial, "Acme Scribe", note_for(trial, "quorum-lost"))
        self.assertEqual((status, body["error"]["code"]), (503, "store_unavailable"), body)
        status, headers, rows = self.get_json("/api/leaderboard")
        self.assertEqual((status, headers["x-cache"]), (200, "STALE"))
        self.assertTrue(any(r["vendor"] == "Steady Notes" for r in rows))
        status, _, body = self.get_json("/api/vendors/Acme%20Scribe")  # never cached: the store's answer
        self.assertEqual((status, body["error"]["code"]), (503, "store_unavailable"))
        status, _, health = self.get_json("/health")  # a grader says it cannot reach the store, within 1 s
        self.assertEqual((status, health["ok"], health["store"]["ok"], health["store"]["code"]),
                         (503, False, False, "store_unavailable"))
        leader.start()
        other.start()
        wait_voters(self.stores, 3)
        self.assertEqual(self.submit(trial, "Acme Scribe", note_for(trial, "quorum-back"))[0], 201)

    def test_8_everything_restarted_keeps_the_data(self):
        before = self.store_rows("SELECT count(*), max(id) FROM submissions")[0]
        self.edge.stop()
        for g in self.graders:
            g.stop()
        for node in self.stores:
            node.proc.terminate()
        for node in self.stores:
            self.assertEqual(node.proc.wait(timeout=30), 0)
        for node in self.stores:
            node.start()
        wait_voters(self.stores, 3)
        for g in self.graders:
            g.start()
        self.edge.start()
        self.assertEqual(self.store_rows("SELECT count(*), max(id) FROM submissions")[0], before)
        self.assertEqual(self.get_json(f"/api/submissions/{before[1]}")[0], 200)

    def test_9_a_new_corpus_regrades_every_stored_note_on_the_store(self):
        """A corpus change (one trial retired): `scribe-fcgi --regrade` grades every stored note of
        the others under the new corpus and writes the grades on the store, the rows and the
        standings exactly what scribe_regrade() writes on one machine (a backup of the store
        regraded by the extension); a second run grades nothing."""
        corpus = os.path.join(self.root, "corpus-b")
        shutil.copytree(os.path.join(REPO, "corpus", "scripts"), corpus)
        retired = TRIALS[9]
        os.remove(os.path.join(corpus, retired + ".yaml"))
        old_hash = self.store_rows("SELECT corpus_hash FROM current_versions")[0][0]

        # Before the corpus is published the regrade refuses, grading nothing.
        status, out, err = regrade(self.stores, os.path.join(self.root, "regrade.db"), corpus)
        new_hash = self.local_corpus_hash(os.path.join(self.root, "regrade.db"))
        self.assertNotEqual(new_hash, old_hash)
        self.assertEqual((status, out, err.splitlines()[-1]),
                         (1, "", f"scribe-fcgi: regrade on the store: this grader's corpus {new_hash} is not the "
                                 f"store's current corpus ({old_hash}): publish it first (cluster/publish); "
                                 "nothing was graded"))
        status, out, err = regrade(self.stores, os.path.join(self.root, "regrade.db"), corpus, ["--store", ""])
        self.assertEqual((status, err.splitlines()[0]), (64, "scribe-fcgi: --regrade needs --store (one machine "
                                                             "regrades at every start)"))

        publish(self.stores, corpus)
        self.assertEqual(self.store_rows("SELECT corpus_hash FROM current_versions")[0][0], new_hash)
        backup = os.path.join(self.root, "before-regrade.db")
        subprocess.run([STORE, "backup", "-cluster", ",".join(n.raft for n in self.stores), "-out", backup], check=True,
                       capture_output=True, timeout=60)
        ids = [r[0] for r in self.store_rows("SELECT id FROM submissions WHERE script_id <> :t ORDER BY id", t=retired)]
        everything = [r[0] for r in self.store_rows("SELECT id, script_id FROM submissions ORDER BY id")]
        kept = set(ids)
        pages = [everything[k:k + 64] for k in range(0, len(everything), 64)]
        version = self.store_rows("SELECT grader_version FROM current_versions")[0][0]

        status, out, err = regrade(self.stores, os.path.join(self.root, "regrade.db"), corpus)
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out), {"submissions": len(everything), "graded": len(ids), "already_current": 0,
                                           "unknown_trial": len(everything) - len(ids),
                                           "batches": sum(1 for p in pages if kept.intersection(p)),
                                           "grader_version": version, "corpus_hash": new_hash,
                                           "store_grader_version": version})
        # Again: nothing left to grade.
        status, out, err = regrade(self.stores, os.path.join(self.root, "regrade.db"), corpus)
        self.assertEqual((status, json.loads(out)), (0, {"submissions": len(everything), "graded": 0,
                                                         "already_current": len(ids),
                                                         "unknown_trial": len(everything) - len(ids), "batches": 0,
                                                         "grader_version": version, "corpus_hash": new_hash,
                                                         "store_grader_version": version}), err)

        # One machine, from the backup taken before: the same rows and the same standings.
        shell = ["sqlite3", "-bail", backup, f".load {EXTENSION}"]
        subprocess.run(shell + ["select scribe_regrade()"], cwd=REPO, env=dict(os.environ, SCRIBE_OFFLINE="1"),
                       check=True, capture_output=True, timeout=300)
        columns = ("submission_id, grader_version, methodology_version, corpus_hash, trial_version_hash, kind, "
                   "score_total, score_drug, score_mental, score_fabrication, unsafe, critical_count, result")
        grades = f"SELECT {columns} FROM grades WHERE corpus_hash = :h ORDER BY submission_id"
        db = sqlite3.connect(backup)
        try:
            local = [list(r) for r in db.execute(grades.replace(":h", "?"), (new_hash,))]
            local_standings = [list(r) for r in db.execute("SELECT * FROM standings ORDER BY vendor_key")]
        finally:
            db.close()
        self.assertEqual(len(local), len(ids))
        self.assertEqual(self.store_rows(grades, h=new_hash), local)
        self.assertEqual(self.store_rows("SELECT * FROM standings ORDER BY vendor_key"), local_standings)

    def local_corpus_hash(self, path):
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT corpus_hash FROM trials LIMIT 1").fetchone()[0]
        finally:
            db.close()


if __name__ == "__main__":
    unittest.main()
