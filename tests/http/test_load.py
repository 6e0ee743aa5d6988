"""test_load.py — concurrency and crash recovery of the real stack.

  * 8 clients x 50 submits at once: every answer 201, every acknowledged id stored, no
    SQLITE_BUSY (or any 5xx) reaching a client.
  * SIGKILL of a worker under load: the supervisor replaces it, the service answers again,
    no acknowledged submission is lost, PRAGMA integrity_check is ok. Only requests that were
    inside the killed worker may fail, and then with nginx's JSON 503.
"""

import http.client
import json
import os
import signal
import threading
import time
import unittest

from harness import leftover_processes, Stack

TRIAL = "03-depression-suicidal-ideation"
NOTE = "Patient on sertraline 50 mg daily. Reports insomnia and passive suicidal ideation. Denies chest pain."


def setUpModule():
    global stack
    stack = Stack(workers=4).start()


def tearDownModule():
    try:
        stack.stop()
    finally:
        stack.cleanup()
    left = leftover_processes()
    if left:
        raise AssertionError(f"processes left behind by the suite: {left}")


class Client(threading.Thread):
    """Submits over one keep-alive connection, `count` times or until `stop` is set."""

    def __init__(self, vendor, count=None, stop=None):
        super().__init__(daemon=True)
        self.vendor, self.count, self.stop = vendor, count, stop
        self.acked, self.failures = [], []

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=60)
        n = 0
        while (self.count is None or n < self.count) and not (self.stop and self.stop.is_set()):
            n += 1
            try:
                r = stack.submit(TRIAL, self.vendor, f"{NOTE} Run {n}.", conn=conn)
            except (OSError, http.client.HTTPException) as e:
                self.failures.append((None, repr(e)))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=60)
                continue
            if r.status == 201:
                self.acked.append(r.json()["id"])
            else:
                self.failures.append((r.status, r.body))
        conn.close()


def stored_ids(vendor_prefix):
    with stack.db() as db:
        return {row[0] for row in db.execute("SELECT id FROM submissions WHERE vendor LIKE ?", (vendor_prefix + "%",))}


class Load(unittest.TestCase):
    def test_8_clients_x_50_submits(self):
        clients = [Client(f"Load Client {i}", count=50) for i in range(8)]
        started = time.monotonic()
        for c in clients:
            c.start()
        for c in clients:
            c.join(120)
        elapsed = time.monotonic() - started
        failures = [f for c in clients for f in c.failures]
        self.assertEqual(failures, [])
        acked = [i for c in clients for i in c.acked]
        self.assertEqual(len(acked), 400)
        self.assertEqual(len(set(acked)), 400)
        self.assertEqual(stored_ids("Load Client "), set(acked))
        print(f"\n  400 submits from 8 clients in {elapsed:.2f}s ({400 / elapsed:.0f}/s)", flush=True)

    def test_sigkill_a_worker_under_load(self):
        stop = threading.Event()
        clients = [Client(f"Kill Client {i}", stop=stop) for i in range(6)]
        for c in clients:
            c.start()
        time.sleep(1.0)
        before = stack.worker_pids()
        victim = before[0]
        os.kill(victim, signal.SIGKILL)
        time.sleep(2.0)
        stop.set()
        for c in clients:
            c.join(60)

        # Replaced: as many workers as before, the victim gone.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (len(stack.worker_pids()) != len(before) or victim in stack.worker_pids()):
            time.sleep(0.05)
        after = stack.worker_pids()
        self.assertEqual(len(after), len(before))
        self.assertNotIn(victim, after)
        self.assertIn(f"worker {victim} killed by signal 9; replacing it", stack.read_log())
        self.assertEqual(stack.request("GET", "/health").status, 200)
        self.assertEqual(stack.submit(TRIAL, "Kill Client after", NOTE).status, 201)

        acked = {i for c in clients for i in c.acked}
        failures = [f for c in clients for f in c.failures]
        self.assertGreater(len(acked), 20)
        self.assertTrue(acked <= stored_ids("Kill Client "), "an acknowledged submission was lost")
        # Only what was inside the killed worker may fail, as nginx's JSON 503. A submit worker
        # serves SCRIBE_SUBMIT_THREADS requests at once, so every client's one request in flight
        # may have been inside it: at most one failure per client.
        self.assertLessEqual(len(failures), len(clients), failures)
        for status, body in failures:
            self.assertEqual(status, 503, body)
            self.assertEqual(json.loads(body)["error"]["code"], "unavailable")
        with stack.db() as db:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        print(f"\n  {len(acked)} acknowledged during the kill, {len(failures)} failed in the killed worker", flush=True)


if __name__ == "__main__":
    unittest.main()
