"""test_lifecycle.py — starting and stopping the stack, and the submit rate limit.

Runs scripts/serve with its default limit (10 r/s per address, burst 20) to see 429s, and
checks that SIGTERM to scripts/serve ends nginx, the supervisor and every worker and removes
the socket; that SIGKILL of any process — nginx's master, the FastCGI supervisor, a worker,
scripts/serve itself — leaves nothing behind and the same port serves again at once; and, when
the module ends, that no process of any stack it started is alive.
"""

import json
import os
import shutil
import signal
import time
import unittest

from harness import REPO, Stack, alive, leftover_processes

TRIAL = "03-depression-suicidal-ideation"


class RegradeAtStart(unittest.TestCase):
    """The supervisor re-grades every stored note under the loaded grader and corpus before it
    serves: a database from before versioned grades (tests/fixtures/db/main-v2.db) shows on the
    leaderboard at once, each note with its old and its current grade."""

    def test_an_old_database_is_regraded_before_serving(self):
        stack = Stack(workers=1)
        try:
            shutil.copy(os.path.join(REPO, "tests", "fixtures", "db", "main-v2.db"), stack.db_path)
            stack.start()
            board = stack.request("GET", "/api/leaderboard").json()
            self.assertEqual([(row["vendor"], row["runs"], row["trials"]) for row in board], [("Acme Scribe", 3, 2)])
            stored = stack.request("GET", "/api/submissions/a000000000000001").json()
            self.assertIs(stored["current"], True)
            self.assertEqual([g["grader_version"] for g in stored["grades"]],
                             ["1.0.0", stack.request("GET", "/health").json()["grader_version"]])
            self.assertRegex(stack.read_log(), r'scribe-fcgi: regrade \{"already_current":0,"batches":1,"corpus_hash":"[0-9a-f]{64}","graded":5,')
        finally:
            stack.stop()
            stack.cleanup()


class Lifecycle(unittest.TestCase):
    def setUp(self):
        self.stack = Stack(workers=2, submit_rate="10r/s", submit_burst=20).start()

    def tearDown(self):
        self.stack.cleanup()

    def test_rate_limit_on_submit(self):
        body = json.dumps({"script_id": "99-nope", "vendor": "Burst", "scribe_output": "x"})
        statuses, limited = [], None
        for _ in range(40):  # far faster than 10/s: the burst of 20 is used up
            r = self.stack.request("POST", "/api/submit", body, {"Content-Type": "application/json"})
            statuses.append(r.status)
            if r.status == 429:
                limited = r
        self.assertEqual(set(statuses), {404, 429})
        self.assertGreaterEqual(statuses.count(404), 20)
        self.assertGreaterEqual(statuses.count(429), 10)
        self.assertEqual(limited.json(), {"error": {"code": "rate_limited",
                                                    "message": "too many submissions; slow down and retry"}})
        self.assertEqual(limited.headers["retry-after"], "1")
        self.assertEqual(limited.headers["content-type"], "application/json")
        # Reads are not limited.
        self.assertEqual({self.stack.request("GET", "/api/scripts").status for _ in range(40)}, {200})

    def test_unreachable_workers_answer_json_503(self):
        # nginx's 502 (no socket to connect to) is answered as the API's 503, uncached.
        os.unlink(self.stack.socket_path())
        os.unlink(self.stack.read_socket_path())
        for method, path, body in (("GET", "/health", None), ("GET", "/api/scripts", None),
                                   ("POST", "/api/submit", json.dumps({"script_id": TRIAL}))):
            r = self.stack.request(method, path, body, {"Content-Type": "application/json"} if body else None)
            self.assertEqual((r.status, r.headers["content-type"], r.headers["cache-control"]),
                             (503, "application/json", "no-cache"), path)
            self.assertEqual(r.json(), {"error": {"code": "unavailable",
                                                  "message": "the grading service is unavailable; retry shortly"}})

    def test_sigterm_stops_everything(self):
        socket_path = self.stack.socket_path()
        self.assertTrue(os.path.exists(socket_path))
        started = time.monotonic()
        status, pids = self.stack.stop()
        self.assertEqual(status, 0)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual([p for p in pids if alive(p)], [])
        self.assertFalse(os.path.exists(socket_path))
        log = self.stack.read_log()
        self.assertIn("stopping 4 workers", log)  # 2 submit + 2 read workers
        self.assertIn("serve: stopped", log)

    def _assert_gone(self, pids):
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual([p for p in pids if alive(p)], [])
        self.assertEqual(leftover_processes(grace=5), [])

    def _restart_on_same_port(self):
        again = Stack(workers=2)
        again.port, again.base = self.stack.port, self.stack.base
        again.env["PORT"] = str(self.stack.port)
        again.start()
        try:
            self.assertEqual(again.request("GET", "/health").status, 200)
        finally:
            again.stop()
            again.cleanup()

    def test_dead_nginx_stops_the_service(self):
        pids = [self.stack.supervisor_pid()] + self.stack.worker_pids()
        nginx = self.stack.nginx_pid()
        os.kill(nginx, signal.SIGKILL)
        self.assertNotEqual(self.stack.proc.wait(15), 0)
        # nginx's workers, orphaned by their master, are ended with it (they held the port).
        self._assert_gone(pids)
        self._restart_on_same_port()

    def test_killed_supervisor_stops_the_service(self):
        supervisor = self.stack.supervisor_pid()
        pids = [self.stack.nginx_pid()] + self.stack.worker_pids()
        os.kill(supervisor, signal.SIGKILL)
        # its workers get SIGTERM (PR_SET_PDEATHSIG) and scripts/serve stops nginx
        self.assertNotEqual(self.stack.proc.wait(15), 0)
        self._assert_gone(pids + [supervisor])
        self.assertIn("a server process exited (status 137); stopping", self.stack.read_log())
        self._restart_on_same_port()  # the stale sockets are replaced

    def test_killed_worker_is_replaced_and_leaves_nothing(self):
        victim = self.stack.worker_pids()[0]
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (victim in self.stack.worker_pids() or
                                               len(self.stack.worker_pids()) != self.stack.workers):
            time.sleep(0.05)
        self.assertNotIn(victim, self.stack.worker_pids())
        self.assertEqual(len(self.stack.worker_pids()), self.stack.workers)
        self.assertIn(f"worker {victim} killed by signal 9; replacing it", self.stack.read_log())
        self.assertEqual(self.stack.request("GET", "/health").status, 200)
        pids = [self.stack.supervisor_pid(), self.stack.nginx_pid()] + self.stack.worker_pids()
        status, _ = self.stack.stop()
        self.assertEqual(status, 0)
        self._assert_gone(pids + [victim])
        self._restart_on_same_port()

    def test_killed_serve_leaves_nothing(self):
        pids = [self.stack.supervisor_pid(), self.stack.nginx_pid()] + self.stack.worker_pids()
        self.stack.proc.send_signal(signal.SIGKILL)  # scripts/serve itself: no trap runs
        self.stack.proc.wait(5)
        self._assert_gone(pids)
        self._restart_on_same_port()


def tearDownModule():
    left = leftover_processes()
    if left:
        raise AssertionError(f"processes left behind by the suite: {left}")


if __name__ == "__main__":
    unittest.main()
