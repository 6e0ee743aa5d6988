"""bench.py — the wrk benchmark of tests/bench/wrk/run against a one-machine cluster: three store
voters (127.0.0.1-3), two graders (`scribe-fcgi --store`, 1 submit worker x 32 threads and 2
read workers each) and one nginx edge, all on this machine's cores. Same lua scripts, same
seed (19 vendors x 10 runs and a passing "Bench Scribe"), same table.

    python3 tests/cluster/bench.py                  # 10 s per target, 2 threads, 32 connections
    DURATION=5s CONNECTIONS=64 python3 tests/cluster/bench.py
    TARGETS=POST python3 tests/cluster/bench.py     # the static file and the targets named so

Bounded: each wrk run lasts DURATION; every process started is stopped at the end.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from cluster import REPO, Edge, Grader, migrate_and_publish, start_stores

WRK = os.path.join(REPO, "tests", "bench", "wrk")
NOTES = os.path.join(REPO, "tests", "fixtures", "notes")


def main():
    if not shutil.which("wrk"):
        sys.exit("bench.py: wrk is not installed (apt-get install wrk; tests/bench/wrk/run installs it)")
    duration = os.environ.get("DURATION", "10s")
    threads = os.environ.get("THREADS", "2")
    connections = os.environ.get("CONNECTIONS", "32")
    root = tempfile.mkdtemp(prefix="scribe-cluster-bench-")
    stores, graders, edge = [], [], None
    try:
        stores = start_stores(root)
        migrate_and_publish(stores)
        graders = [Grader(i, root, stores) for i in range(2)]
        for g in graders:
            g.start()
        edge = Edge(root, graders)
        edge.start()
        trials = sorted(os.listdir(NOTES))

        def seed(vendor, trial):
            with open(os.path.join(NOTES, trial, "reference.txt"), encoding="utf-8") as f:
                note = f.read()
            status, _, body = edge.request("POST", "/api/submit", {"script_id": trial, "vendor": vendor,
                                                                   "scribe_output": note})
            if status != 201:
                raise RuntimeError(f"seeding: {status} {body[:200]}")

        for v in range(1, 20):
            for r in range(10):
                seed(f"Vendor {v}", trials[(v + r) % len(trials)])
        for t in trials:
            seed("Bench Scribe", t)
        seed("Soak Vendor", "03-depression-suicidal-ideation")
        base = f"http://127.0.0.1:{edge.port}/scribe-trials"
        print(f"scribe-trials wrk benchmark, one-machine cluster (3 store voters, 2 graders, 1 edge): {duration} per "
              f"target, {threads} threads, {connections} connections, {os.cpu_count()} CPUs\n")
        print(f"{'target':34} {'req/s':>10} {'p50_ms':>9} {'p99_ms':>9} {'errors':>8} {'requests':>10} {'vs_static':>9}")
        static = None
        only = os.environ.get("TARGETS")  # e.g. "POST" or "GET /api/vendors": the targets whose label starts so
        for label, script, url in [
            ("static index.html", "get.lua", f"{base}/index.html"),
            ("GET /api/scripts", "get.lua", f"{base}/api/scripts"),
            ("GET /api/leaderboard", "get.lua", f"{base}/api/leaderboard"),
            ("GET /api/badge/:vendor.svg", "get.lua", f"{base}/api/badge/Bench%20Scribe.svg"),
            ("GET /api/vendors/:vendor (store)", "get.lua", f"{base}/api/vendors/Vendor%201"),
            ("POST /api/submit", "submit.lua", f"{base}/api/submit"),
        ]:
            if only and not any(label.startswith(t) for t in only.split(",")) and label != "static index.html":
                continue
            out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}", "--timeout", "10s", "-s",
                                  script, url], cwd=WRK, capture_output=True, text=True, timeout=600).stdout
            line = next((l for l in out.splitlines() if l.startswith("RESULT ")), None)
            if line is None:
                raise RuntimeError(f"wrk gave no result for {label}:\n{out}")
            rps, p50, p99, errors, requests = line.split()[1:6]
            static = static or float(rps)
            print(f"{label:34} {rps:>10} {p50:>9} {p99:>9} {errors:>8} {requests:>10} {100 * float(rps) / static:>8.0f}%")
        stored = stores[0].query("SELECT count(*) FROM submissions")[0][0]
        print(f"\nsubmissions on the store: {stored}")
    finally:
        if edge:
            edge.stop()
        for g in graders:
            g.stop()
        for node in stores:
            if node.alive():
                node.proc.terminate()
                node.proc.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
