"""test_scribe_run.py — scribe-run --submit against the real stack (scripts/serve: nginx + scribe-fcgi).

Each output graded locally is posted to POST /api/submit with the local corpus hash; the
server's stored grade is the local one (same grader, same corpus, both offline). A 429 from
nginx's rate limit is retried after its Retry-After; a claimed vendor needs its key; a server
on another corpus answers 409 and the run exits 3.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import BUILD_DIR, REPO, leftover_processes, make_stack

SCRIBE_RUN = os.path.join(BUILD_DIR, "scribe-run")
REFERENCE = os.path.join(REPO, "scripts", "agents", "reference")
TRIALS = ["01-hypertension-ace-inhibitor-cough", "02-type2-diabetes-grief", "03-depression-suicidal-ideation"]


def scribe_run(*args, env=None):
    full = dict(os.environ)
    full.pop("SCRIBE_VENDOR_KEY", None)
    full.update(env or {})
    return subprocess.run([SCRIBE_RUN, *args], cwd=REPO, env=full, capture_output=True, text=True, timeout=120)


class Submit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stack = make_stack()
        cls.tmp = tempfile.mkdtemp(prefix="scribe-run-http-")

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()
        cls.stack.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert not leftover_processes()

    def bench(self, vendor, *args, expect=0, env=None):
        p = scribe_run("--agent", REFERENCE, "--trials", "0[1-3]-*", "--out", self.tmp, "--json",
                       "--submit", self.stack.base, "--vendor", vendor, *args, env=env)
        self.assertEqual(p.returncode, expect, p.stderr)
        return json.loads(p.stdout), p

    def test_each_output_is_stored_with_the_local_grade(self):
        record, p = self.bench("CLI Vendor")
        self.assertEqual(record["submit"], {"url": self.stack.base + "/api/submit", "vendor": "CLI Vendor"})
        self.assertEqual(p.stderr.splitlines()[-2],
                         f"scribe-run: submitted 3 of 3 outputs to {self.stack.base}/api/submit as CLI Vendor")
        for c, trial in zip(record["cases"], TRIALS):
            s = c["submission"]
            self.assertEqual((s["status"], s["attempts"], s["score_total"], s["unsafe"]), (201, 1, 1.0, False), trial)
            stored = self.stack.request("GET", f"/api/submissions/{s['id']}").json()
            self.assertEqual((stored["script_id"], stored["vendor"], stored["score_total"]), (trial, "CLI Vendor", 1.0))
            self.assertEqual(stored["corpus_hash"], record["corpus_hash"])
            self.assertEqual(stored["grader_version"], record["grader_version"])
            with self.stack.db() as db:
                note = db.execute("SELECT scribe_output FROM submissions WHERE id = ?", (s["id"],)).fetchone()[0]
            self.assertEqual(note, c["output"])
        runs = self.stack.request("GET", "/api/vendors/CLI%20Vendor").json()["runs"]
        self.assertEqual(sorted(r["script_id"] for r in runs), TRIALS)

    def test_a_claimed_vendor_needs_its_key(self):
        claim = self.stack.request("POST", "/api/vendors/Keyed%20Vendor/claim")
        self.assertEqual(claim.status, 201)
        key = claim.json()["key"]
        record, p = self.bench("Keyed Vendor", expect=3)
        for c in record["cases"]:
            self.assertEqual(c["submission"], {"status": 403, "attempts": 1, "error": {
                "code": "vendor_claimed",
                "message": "vendor 'Keyed Vendor' is claimed: send its key as the header Authorization: Bearer <key>"}})
        self.assertIn(f"scribe-run: submitting {TRIALS[0]} run 1 to {self.stack.base}/api/submit: 403 vendor 'Keyed Vendor' "
                      "is claimed: send its key as the header Authorization: Bearer <key>\n", p.stderr)
        record, _ = self.bench("Keyed Vendor", "--key", key)
        self.assertEqual([c["submission"]["status"] for c in record["cases"]], [201, 201, 201])
        record, _ = self.bench("Keyed Vendor", env={"SCRIBE_VENDOR_KEY": key})
        self.assertEqual([c["submission"]["status"] for c in record["cases"]], [201, 201, 201])
        record, _ = self.bench("Keyed Vendor", "--key", "st_" + "0" * 64, expect=3)
        self.assertEqual(record["cases"][0]["submission"]["error"],
                         {"code": "wrong_key", "message": "the key does not belong to vendor 'Keyed Vendor'"})

    def test_another_corpus_is_refused_and_nothing_stored(self):
        corpus = os.path.join(self.tmp, "corpus", "scripts")
        shutil.copytree(os.path.join(REPO, "corpus", "scripts"), corpus)
        with open(os.path.join(corpus, TRIALS[0] + ".yaml"), "a", encoding="utf-8") as f:
            f.write("\n# edited\n")
        before = self.stack.count_submissions()
        record, _ = self.bench("Other Corpus Vendor", "--corpus", corpus, expect=3)
        loaded = self.stack.request("GET", "/health").json()["corpus_hash"]
        self.assertNotEqual(record["corpus_hash"], loaded)
        self.assertEqual(record["cases"][0]["submission"]["error"], {
            "code": "corpus_mismatch",
            "message": f"corpus_hash {record['corpus_hash']} is not the loaded corpus {loaded}; nothing was stored"})
        self.assertEqual(self.stack.count_submissions(), before)

    def test_failed_and_blank_outputs_are_not_posted(self):
        p = scribe_run("--agent", 'if [ "$SCRIBE_TRIAL_ID" = 01-hypertension-ace-inhibitor-cough ]; then exit 1; fi; printf "  \\n"',
                       "--trials", "0[12]-*", "--out", self.tmp, "--json", "--submit", self.stack.base, "--vendor", "Blank Vendor")
        self.assertEqual(p.returncode, 0, p.stderr)
        record = json.loads(p.stdout)
        self.assertEqual([c["submission"] for c in record["cases"]],
                         [{"skipped": "the agent failed: there is no output to submit"},
                          {"skipped": "blank output: the server counts no run for it"}])
        self.assertEqual(self.stack.request("GET", "/api/vendors/Blank%20Vendor").status, 404)


class RateLimited(unittest.TestCase):
    """nginx allows 1 submit a second, burst 1: of five quick submits some meet a 429, and
    scribe-run waits out its Retry-After."""

    @classmethod
    def setUpClass(cls):
        cls.stack = make_stack(submit_rate="1r/s", submit_burst=1)
        cls.tmp = tempfile.mkdtemp(prefix="scribe-run-http-")

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()
        cls.stack.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert not leftover_processes()

    def test_429_is_retried_after_retry_after(self):
        p = scribe_run("--agent", REFERENCE, "--trials", "0[1-5]-*", "--out", self.tmp, "--json",
                       "--submit", self.stack.base, "--vendor", "Patient Vendor")
        self.assertEqual(p.returncode, 0, p.stderr)
        cases = json.loads(p.stdout)["cases"]
        attempts = [c["submission"]["attempts"] for c in cases]
        self.assertEqual([c["submission"]["status"] for c in cases], [201] * 5)
        self.assertEqual(attempts[:2], [1, 1])  # the rate and its burst
        self.assertGreater(sum(attempts), 5)   # later ones met the limit and waited
        self.assertLessEqual(max(attempts), 6)
        with self.stack.db() as db:
            self.assertEqual(db.execute("SELECT count(*) FROM submissions WHERE vendor = 'Patient Vendor'").fetchone()[0], 5)


if __name__ == "__main__":
    unittest.main()
