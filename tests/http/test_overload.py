"""test_overload.py — one client cannot stall the service, and nothing is done for a client that left.

  * A client sending worst-case notes at the submit rate limit (10/s, nginx's production
    defaults) for 10 s: /health and a normal submission from other clients never wait more than
    2 s, and every worst-case note is answered 201 or refused with the JSON 429.
  * Each worst-case note alone answers within the per-note budget (docs/http-api.md).
  * Requests whose client gave up, or that passed the deadline in the queue, are neither graded
    nor stored: the database holds exactly the acknowledged submissions (the probe found 159
    rows for 12 acknowledgements). Grades are made to take a fixed second each with a silent
    RxNav (the live-validation budget cuts each note's one lookup at 1 s), whatever the
    grader's speed.

Clients use different loopback source addresses (127.0.0.2, 127.0.0.3, …): nginx's limits are
per address.
"""

import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import unittest

from harness import REPO, Stack, leftover_processes

TRIAL = "03-depression-suicidal-ideation"
ALLERGY_TRIAL = "04-asthma-rescue-inhaler-overuse"
NORMAL_NOTE = "Patient on sertraline 50 mg daily. Reports insomnia and passive suicidal ideation. No chest pain."
# The costliest notes known (issue 9), each at the 200 000-character cap or near it.
WORST_CASE = [
    (TRIAL, "no;" * 66666),                       # assertion triggers x clause breaks
    (ALLERGY_TRIAL, "Penicillin.\n" * 16666),     # allergy context in a trial with allergies
    (TRIAL, ("No SI. " * 28572)[:200000]),       # one match per sentence: evidence for each
    (TRIAL, ("Sertraline 50 mg daily. " * 8334)[:200000]),
]
PER_NOTE_BUDGET_S = 2.0  # docs/http-api.md, "Cost budget"
WAIT_LIMIT_S = 2.0


def submit(port, source, script_id, note, vendor, timeout=60):
    """One POST /api/submit from `source` on a new connection: (status, body, seconds)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    body = json.dumps({"script_id": script_id, "vendor": vendor, "scribe_output": note})
    started = time.monotonic()
    try:
        conn.request("POST", "/scribe-trials/api/submit", body, {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        return r.status, data, time.monotonic() - started
    finally:
        conn.close()


def get(port, source, path, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    started = time.monotonic()
    try:
        conn.request("GET", "/scribe-trials" + path)
        r = conn.getresponse()
        r.read()
        return r.status, time.monotonic() - started
    finally:
        conn.close()


class WorstCaseClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Production limits: 10 r/s burst 20 and 2 concurrent submissions per address.
        cls.stack = Stack(workers=4, read_workers=2, submit_rate="10r/s", submit_burst=20, submit_concurrency=2).start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.stack.stop()
        finally:
            cls.stack.cleanup()

    def test_worst_case_notes_at_the_rate_limit_do_not_stall_health_or_a_normal_submit(self):
        port, stop = self.stack.port, threading.Event()
        health, normal = [], []

        def probe_health():
            while not stop.is_set():
                health.append(get(port, "127.0.0.2", "/health"))
                time.sleep(0.2)

        def probe_submit():
            n = 0
            while not stop.is_set():
                n += 1
                status, _, seconds = submit(port, "127.0.0.3", TRIAL, f"{NORMAL_NOTE} Run {n}.", "Normal Client")
                normal.append((status, seconds))
                time.sleep(0.5)

        probes = [threading.Thread(target=probe_health, daemon=True), threading.Thread(target=probe_submit, daemon=True)]
        for p in probes:
            p.start()
        attack = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
            started = time.monotonic()
            for i in range(100):  # 10 s at 10/s, whatever the answers
                script_id, note = WORST_CASE[i % len(WORST_CASE)]
                attack.append(pool.submit(submit, port, "127.0.0.4", script_id, note, "Worst Case"))
                time.sleep(max(0.0, started + (i + 1) * 0.1 - time.monotonic()))
            time.sleep(2)  # and the service right after the burst
            stop.set()
            results = [f.result() for f in attack]
        for p in probes:
            p.join(60)

        worst_health = max(s for _, s in health)
        worst_normal = max(s for _, s in normal)
        statuses = [status for status, _, _ in results]
        print(f"\n  worst-case client: {statuses.count(201)} x 201, {statuses.count(429)} x 429; "
              f"/health max {worst_health:.3f} s over {len(health)}, normal submit max {worst_normal:.3f} s "
              f"over {len(normal)}", flush=True)
        self.assertEqual({status for status, _ in health}, {200})
        self.assertEqual({status for status, _ in normal}, {201})
        self.assertLess(worst_health, WAIT_LIMIT_S)
        self.assertLess(worst_normal, WAIT_LIMIT_S)
        self.assertGreater(statuses.count(201), 0)
        self.assertEqual(set(statuses) - {201, 429}, set(), "only graded, or refused by the limits")
        for status, body, _ in results:
            if status == 429:
                self.assertEqual(json.loads(body), {"error": {"code": "rate_limited",
                                                              "message": "too many submissions; slow down and retry"}})

    def test_worst_case_notes_grade_within_the_per_note_budget(self):
        # Needs the grader's linear assertion and allergy-context paths (issue 9, finding 2).
        over = []
        for script_id, note in WORST_CASE:
            status, body, seconds = submit(self.stack.port, "127.0.0.5", script_id, note, "Budget Check")
            self.assertEqual(status, 201, body[:200])
            print(f"\n  {note[:12]!r}… ({len(note)} characters, {script_id}): {seconds:.2f} s", end="", flush=True)
            if seconds >= PER_NOTE_BUDGET_S:
                over.append(f"{note[:12]!r}… took {seconds:.2f} s")
        self.assertEqual(over, [], f"over the {PER_NOTE_BUDGET_S} s per-note budget")


class AbandonedRequests(unittest.TestCase):
    """One submit worker with one request thread; each grade takes 1 s (its one RxNav lookup, to a silent upstream, is
    cut at the live-validation budget); twelve clients submit at once."""

    def setUp(self):
        self.silent = subprocess.Popen([sys.executable, os.path.join(REPO, "tests", "rxnav", "fake_upstream.py"),
                                        "--silent", "--lifetime", "60"], stdout=subprocess.PIPE, text=True)
        line = self.silent.stdout.readline()
        self.silent.stdout.close()
        self.assertTrue(line.startswith("port "), line)
        self.rxnav = f"http://127.0.0.1:{int(line.split()[1])}/REST"
        self.stack = None

    def tearDown(self):
        if self.stack:
            self.stack.stop()
            self.stack.cleanup()
        self.silent.kill()
        self.silent.wait()

    def run_clients(self, deadline_s, client_timeout_s):
        self.stack = Stack(workers=1, read_workers=1, extra_env={
            "SCRIBE_SUBMIT_THREADS": "1", "SCRIBE_OFFLINE": "0", "SCRIBE_RXNAV_URL": self.rxnav, "SCRIBE_OPENFDA_URL": "off",
            "SCRIBE_LIVE_BUDGET_MS": "1000", "SCRIBE_REQUEST_DEADLINE_S": str(deadline_s)}).start()

        def one(i):
            try:
                return submit(self.stack.port, "127.0.0.6", TRIAL, f"{NORMAL_NOTE} Client {i}.", "Impatient",
                              timeout=client_timeout_s)[:2]
            except (OSError, http.client.HTTPException):
                return None, None  # the client gave up

        with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
            answers = list(pool.map(one, range(12)))
        acked = [json.loads(body)["id"] for status, body in answers if status == 201]
        self.assertGreater(len(acked), 0)
        self.assertLess(len(acked), 12, "every client was served: the shape was not reproduced")
        # The worker drains the rest of the queue without grading or storing any of it: at most
        # the one in progress when its client left is graded, and none is stored.
        want = 12 - len(acked) - 1
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.stack.read_log().count("submission abandoned") < want:
            time.sleep(0.2)
        time.sleep(1.5)  # one more grade's time, should anything still be running
        with self.stack.db() as db:
            stored = {row[0] for row in db.execute("SELECT id FROM submissions")}
        self.assertEqual(stored, set(acked), "stored exactly the acknowledged submissions")
        return answers, acked, self.stack.read_log()

    def test_requests_past_the_deadline_are_not_graded_or_stored(self):
        answers, acked, log = self.run_clients(deadline_s=3, client_timeout_s=60)
        refused = [json.loads(body) for status, body in answers if status != 201]
        self.assertEqual(len(refused), 12 - len(acked))
        message = "the request is older than the 3 s deadline; the submission was not stored"
        self.assertEqual(refused, [{"error": {"code": "deadline_passed", "message": message}}] * len(refused))
        self.assertEqual(log.count("submission abandoned: the request is older than the 3 s deadline"), len(refused))
        print(f"\n  deadline 3 s: {len(acked)} acknowledged and stored, {len(refused)} answered 503 unstored", flush=True)

    def test_requests_of_clients_that_gave_up_are_not_graded_or_stored(self):
        answers, acked, log = self.run_clients(deadline_s=30, client_timeout_s=2.5)
        gave_up = answers.count((None, None))
        self.assertEqual(gave_up, 12 - len(acked))
        self.assertGreaterEqual(log.count("submission abandoned: the client has gone"), gave_up - 1, log[-2000:])
        print(f"\n  clients leaving after 2.5 s: {len(acked)} acknowledged and stored, {gave_up} gave up, "
              f"{log.count('submission abandoned: the client has gone')} abandoned unstored", flush=True)


def tearDownModule():
    left = leftover_processes()
    if left:
        raise AssertionError(f"processes left behind by the suite: {left}")


if __name__ == "__main__":
    unittest.main()
