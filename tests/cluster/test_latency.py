"""test_latency.py — the cluster with slow and broken links between the graders and the store.

    python3 tests/cluster/test_latency.py -v

Added network latency on the store links would be `tc netem`'s job, but netem is not available
here: this kernel has no sch_netem and loads no modules (`tc qdisc add dev lo root
netem delay 5ms` answers "Error: Specified qdisc kind is unknown"). latency_proxy.LatencyProxy
stands in for it: a user-space TCP proxy per grader→store link (two graders × three voters = six
links) that holds every chunk for a one-way delay before passing it on, in order, each direction
(netem's `delay`), or black-holes the link (accepts and reads, never forwards: a partition that
drops packets rather than refusing connections). The graders reach the store only through these
proxies (their --store URLs are the proxies'); the voters' Raft traffic and the test's own checks
on the store (Node.query) go direct.

The cluster: three `scribe-store` voters on 127.0.0.1-3, two graders (`scribe-fcgi --store`), one
nginx edge; submissions are real (each trial's reference note with a unique line, so a note stored
twice is visible). In order:

1. Cross-zone links: 100 submits at 8-way through the edge, first with no added delay, then with
   20 ms one way on every grader→store link (≈ 40 ms round trip): every one 201, each reads back
   through the edge with the same score, the store holds each note exactly once. The throughput
   (submits/s) and the latency (p50/p99) are printed, not asserted: this is a shared two-core
   machine.
2. One link stalled (the grader→store links to one voter black-holed), each voter in turn, the
   leader included: every submit still answers 201, through another voter, within the store
   client's documented deadline (8 s: docs/scale-out.md, "Exactly once across failover") plus a
   generous 5 s; each reads back at once; no note stored twice.
3. Every link stalled: a submit answers 503 with the exact body of a read the store did not
   answer ({"code":"store_unavailable","message":"the store of record cannot be reached; retry
   shortly"}, Retry-After: 1) and a stored submission's read the same, each within the 8 s
   deadline plus 5 s; /health answers 503 with "store":{"ok":false,"code":"store_unavailable"}
   within its 1 s plus 5 s; nothing hangs and nothing is stored.
4. Links healed after a stall: submits answer 201 again at once and /health reports the store ok.

The time bounds are correctness bounds (no request waits on a dead link for ever), not speed
tests. Every wait is bounded; every process and proxy is stopped at the end, also on failure.
"""

import json
import math
import socket
import sys
import threading
import time
import unittest

from cluster import TRIALS, EdgeCluster, leader_of, note_for, wait_for
from latency_proxy import LatencyProxy


STORE_DEADLINE_S = 8   # a grader's store call, every node tried (fcgi/store_client.h; docs/scale-out.md)
HEALTH_DEADLINE_S = 1  # /health's store read (docs/http-api.md: "no store node answered a read within 1 s")
SLACK_S = 5            # a loaded two-core machine; a bound, not a measurement
CROSS_ZONE_MS = 20     # one way: ≈ 40 ms round trip

UNREACHABLE = {"error": {"code": "store_unavailable", "message": "the store of record cannot be reached; retry shortly"}}


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


class LatencyProxyAlone(unittest.TestCase):
    """The proxy itself, against a local echo server: the delay, the order, a stall, a refusal, and
    a bounded stop."""

    def setUp(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.serving = True
        self.echoes = []
        self.acceptor = threading.Thread(target=self.accept, daemon=True)
        self.acceptor.start()
        self.proxy = LatencyProxy(self.listener.getsockname(), host="127.0.0.2").start()

    def tearDown(self):
        self.proxy.stop()
        self.serving = False
        self.acceptor.join(5)
        self.listener.close()

    def accept(self):
        while self.serving:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            t = threading.Thread(target=self.echo, args=(conn,), daemon=True)
            t.start()
            self.echoes.append(t)

    @staticmethod
    def echo(conn):
        with conn:
            try:
                while data := conn.recv(65536):
                    conn.sendall(data)
            except OSError:
                pass

    def connect(self):
        return socket.create_connection(self.proxy.http, timeout=5)

    def round_trip(self, s, payload=b"ping"):
        start = time.monotonic()
        s.sendall(payload)
        got = b""
        while len(got) < len(payload):
            chunk = s.recv(65536)
            self.assertTrue(chunk, "the proxy closed the connection")
            got += chunk
        self.assertEqual(got, payload)
        return time.monotonic() - start

    def test_delay_each_way_and_order_kept(self):
        self.proxy.set_delay(50)
        with self.connect() as s:
            rtt = self.round_trip(s)
            self.assertGreaterEqual(rtt, 0.100 - 0.002, "a round trip is held 50 ms each way")
            self.assertLess(rtt, 0.100 + SLACK_S)
            # 200 writes in quick succession: each is held 50 ms, not 50 ms per write queued ahead
            start = time.monotonic()
            sent = b"".join(f"{k:04d};".encode() for k in range(200))
            for k in range(200):
                s.sendall(f"{k:04d};".encode())
            got = b""
            while len(got) < len(sent):
                got += s.recv(65536)
            self.assertEqual(got, sent)
            self.assertLess(time.monotonic() - start, 200 * 0.050 / 2, "the delay is not cumulative (200 × 50 ms = 10 s)")
        self.proxy.set_delay(0)
        with self.connect() as s:
            self.assertLess(self.round_trip(s), 0.100 - 0.002 + SLACK_S)

    def test_stall_black_holes_then_heal_closes_it(self):
        with self.connect() as before:
            self.round_trip(before)
            self.proxy.stall()
            before.sendall(b"lost")
            with self.connect() as during:  # accepted, never answered
                during.sendall(b"lost too")
                for s in (before, during):
                    s.settimeout(0.5)
                    with self.assertRaises(TimeoutError):
                        s.recv(16)
                self.assertGreater(self.proxy.discarded_bytes, 0)
                self.proxy.heal()
                for s in (before, during):  # closed at the heal: nothing late
                    s.settimeout(5)
                    try:
                        self.assertEqual(s.recv(16), b"")
                    except ConnectionResetError:
                        pass
        with self.connect() as after:
            self.round_trip(after)

    def test_refuse_then_listen_again_on_the_same_port(self):
        port = self.proxy.http[1]
        self.proxy.refuse()
        with self.assertRaises(ConnectionRefusedError):
            self.connect()
        self.proxy.heal()
        self.assertEqual(self.proxy.http[1], port)
        with self.connect() as s:
            self.round_trip(s)

    def test_stop_is_bounded_with_connections_open(self):
        self.proxy.set_delay(1000)
        s1, s2 = self.connect(), self.connect()
        s1.sendall(b"held for a second")
        self.proxy.stall()
        start = time.monotonic()
        self.proxy.stop()
        self.assertLess(time.monotonic() - start, self.proxy.stop_timeout + 1)
        for s in (s1, s2):
            s.settimeout(5)
            try:
                self.assertEqual(s.recv(16), b"")
            except ConnectionResetError:
                pass
            s.close()


class Links:
    """The proxies of every grader→store link: links[g][i] from grader g to voter i."""

    def __init__(self, stores, graders=2):
        self.links = []
        try:
            for _ in range(graders):
                self.links.append([LatencyProxy(node.http, host=node.host).start() for node in stores])
        except BaseException:
            self.stop()
            raise

    def to(self, i):
        """The links of every grader to voter i."""
        return [row[i] for row in self.links]

    def all(self):
        return [p for row in self.links for p in row]

    def set_delay(self, ms, proxies=None):
        for p in proxies or self.all():
            p.set_delay(ms)

    def stall(self, proxies=None):
        for p in proxies or self.all():
            p.stall()

    def heal(self, proxies=None):
        for p in proxies or self.all():
            p.heal(0)

    def stop(self):
        errors = []
        for p in [p for row in self.links for p in row]:
            try:
                p.stop()
            except Exception as e:  # noqa: BLE001 - every proxy is stopped; the first error is raised
                errors.append(e)
        if errors:
            raise errors[0]


class ClusterLatency(EdgeCluster):
    """The graders reach the store only through the proxies of `Links` (store_targets); the
    test's own reads on the store (store_rows) go direct."""

    prefix = "scribe-cluster-latency-"
    links = None

    @classmethod
    def start_links(cls):
        cls.links = Links(cls.stores)

    @classmethod
    def stop_links(cls):
        if cls.links:
            cls.links.stop()

    @classmethod
    def store_targets(cls, grader):
        return cls.links.links[grader]

    def setUp(self):
        self.links.heal()

    def tearDown(self):
        self.links.heal()

    # ------------------------------------------------------------------ helpers

    def submit(self, trial, vendor, note):
        """(status, headers, body, seconds) of one submit through the edge."""
        start = time.monotonic()
        status, headers, body = self.edge.request("POST", "/api/submit",
                                                  {"script_id": trial, "vendor": vendor, "scribe_output": note})
        return status, headers, json.loads(body) if body else None, time.monotonic() - start

    def get_json(self, path):
        start = time.monotonic()
        status, headers, body = self.edge.request("GET", path)
        return status, headers, json.loads(body), time.monotonic() - start

    def load(self, count, vendor, workers=8):
        """`count` submits through the edge, `workers` at a time: ([(status, headers, body, marker,
        seconds)] in completion order, wall seconds)."""
        def work(trial, marker):
            try:
                status, headers, body, seconds = self.submit(trial, vendor, note_for(trial, marker))
            except Exception as e:  # noqa: BLE001 - recorded: the test fails on it with the cause
                status, headers, body, seconds = None, {}, {"exception": repr(e)}, None
            return status, headers, body, marker, seconds
        start = time.monotonic()
        answers = self.submit_notes(count, work, workers)
        return answers, time.monotonic() - start

    def codes(self, answers):
        out = {}
        for status, _, body, _, _ in answers:
            key = status if status in (200, 201) or not isinstance(body, dict) or "error" not in body \
                else (status, body["error"]["code"])
            out[key] = out.get(key, 0) + 1
        return out

    def assert_all_stored_once(self, answers, vendor):
        """Every answer 201; each reads back through the edge with its score; the store holds
        exactly the acknowledged submissions, each note once."""
        self.assertEqual(self.codes(answers), {201: len(answers)},
                         [a[2] for a in answers if a[0] != 201][:3])
        for status, headers, body, marker, _ in answers:
            self.assertEqual(headers["location"], f"/scribe-trials/api/submissions/{body['id']}")
            status, _, stored, _ = self.get_json(f"/api/submissions/{body['id']}")
            self.assertEqual(status, 200, stored)
            self.assertEqual((stored["id"], stored["vendor"], stored["score_total"]),
                             (body["id"], vendor, body["score_total"]))
        rows = self.store_rows("SELECT id, scribe_output FROM submissions WHERE vendor = :v", v=vendor)
        markers = [r[1].rsplit("Visit reference: ", 1)[1].strip() for r in rows]
        self.assertEqual(len(markers), len(set(markers)), "a note was stored twice")
        self.assertEqual(sorted(markers), sorted(a[3] for a in answers))
        self.assertEqual({r[0] for r in rows}, {a[2]["id"] for a in answers})

    def report(self, what, answers, wall, workers=8):
        latencies = [a[4] for a in answers if a[4] is not None]
        line = (f"{what}: {len(answers)} submits at {workers}-way in {wall:.2f} s = {len(answers) / wall:.1f} submits/s; "
                f"latency p50 {percentile(latencies, 50) * 1000:.0f} ms, p99 {percentile(latencies, 99) * 1000:.0f} ms, "
                f"max {max(latencies) * 1000:.0f} ms; {self.codes(answers)}")
        print(f"\n  {line}", file=sys.stderr)
        return line

    # ------------------------------------------------------------------ the tests, in order

    def test_1_cross_zone_delay_every_submit_stored_once(self):
        base, wall0 = self.load(100, "Near Vendor")
        self.report("no added delay", base, wall0)
        self.assert_all_stored_once(base, "Near Vendor")

        self.links.set_delay(CROSS_ZONE_MS)
        # the delay is in force: one store read through a grader (/health) takes a round trip or more
        status, _, health, seconds = self.get_json("/health")
        self.assertEqual((status, health["store"]), (200, {"ok": True}))
        self.assertGreaterEqual(seconds, 2 * CROSS_ZONE_MS / 1000 - 0.002)
        forwarded = sum(p.forwarded_bytes for p in self.links.all())
        answers, wall = self.load(100, "Far Vendor")
        self.report(f"{CROSS_ZONE_MS} ms one way on every grader-store link", answers, wall)
        self.assertGreater(sum(p.forwarded_bytes for p in self.links.all()), forwarded)
        self.assert_all_stored_once(answers, "Far Vendor")

    def test_2_one_stalled_link_fails_over_within_the_deadline(self):
        leader = leader_of(self.stores)
        for i, node in enumerate(self.stores):
            vendor = f"Stall Vendor {i + 1}"
            discarded = sum(p.discarded_bytes for p in self.links.to(i))
            self.links.stall(self.links.to(i))
            try:
                answers, wall = self.load(16, vendor)
                self.report(f"links to voter {node.host}{' (the leader)' if node is leader else ''} stalled",
                            answers, wall)
                self.assertEqual(self.codes(answers), {201: len(answers)}, [a[2] for a in answers if a[0] != 201][:3])
                slowest = max(a[4] for a in answers)
                self.assertLess(slowest, STORE_DEADLINE_S + SLACK_S)
                # each reads back while the link is still stalled (through any grader's read worker)
                for _, _, body, _, _ in answers:
                    status, _, stored, seconds = self.get_json(f"/api/submissions/{body['id']}")
                    self.assertEqual((status, stored.get("id")), (200, body["id"]), stored)
                    self.assertLess(seconds, STORE_DEADLINE_S + SLACK_S)
                self.assertGreater(sum(p.discarded_bytes for p in self.links.to(i)), discarded,
                                   "no request went into the stalled link")
            finally:
                self.links.heal(self.links.to(i))
            self.assert_all_stored_once(answers, vendor)

    def test_3_every_link_stalled_503_within_the_deadline(self):
        # a stored submission, to read while the store is unreachable
        status, _, stored, _ = self.submit(TRIALS[0], "Unreached Vendor", note_for(TRIALS[0], "before-the-stall"))
        self.assertEqual(status, 201, stored)
        self.links.stall()

        status, _, health, seconds = self.get_json("/health")
        self.assertEqual((status, health["ok"], health["store"]["ok"], health["store"]["code"]),
                         (503, False, False, "store_unavailable"), health)
        self.assertLess(seconds, HEALTH_DEADLINE_S + SLACK_S)

        answers, wall = self.load(4, "Unreached Vendor", workers=4)
        self.report("every link stalled", answers, wall, workers=4)
        for status, headers, body, _, seconds in answers:
            self.assertEqual((status, body, headers.get("retry-after")), (503, UNREACHABLE, "1"))
            self.assertLess(seconds, STORE_DEADLINE_S + SLACK_S)

        status, headers, body, seconds = self.get_json(f"/api/submissions/{stored['id']}")
        self.assertEqual((status, body, headers.get("retry-after")), (503, UNREACHABLE, "1"))
        self.assertLess(seconds, STORE_DEADLINE_S + SLACK_S)
        self.assertGreater(sum(p.discarded_bytes for p in self.links.all()), 0)

        self.links.heal()
        rows = self.store_rows("SELECT id FROM submissions WHERE vendor = 'Unreached Vendor'")
        self.assertEqual(rows, [[stored["id"]]], "a submission answered 503 while every link was stalled was stored")

    def test_4_healed_links_serve_again(self):
        self.links.stall()
        wait_for("/health to report the store unreachable",
                 lambda: self.get_json("/health")[0] == 503, limit=HEALTH_DEADLINE_S + SLACK_S + 10)
        self.links.heal()
        status, _, health, seconds = self.get_json("/health")
        self.assertEqual((status, health["ok"], health["store"]), (200, True, {"ok": True}), health)
        self.assertLess(seconds, HEALTH_DEADLINE_S + SLACK_S)
        answers, wall = self.load(16, "Healed Vendor")
        self.report("links healed", answers, wall)
        self.assert_all_stored_once(answers, "Healed Vendor")
        self.assertLess(max(a[4] for a in answers), STORE_DEADLINE_S + SLACK_S)
        # both graders answer /health ok (nginx's round robin: two reads reach both read upstreams)
        for _ in range(2):
            status, _, health, _ = self.get_json("/health")
            self.assertEqual((status, health["store"]), (200, {"ok": True}), health)


if __name__ == "__main__":
    unittest.main()
