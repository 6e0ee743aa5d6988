"""regrade_bench.py — how long `scribe-fcgi --store … --regrade` takes to grade every stored note
of a one-machine cluster again (three store voters on 127.0.0.1-3, everything on this machine's
cores) after a corpus change.

    python3 tests/cluster/regrade_bench.py                # 2,000 stored notes
    NOTES=10000 python3 tests/cluster/regrade_bench.py
    FCGI=/tmp/scribe-fcgi.old python3 tests/cluster/regrade_bench.py   # another build's grader

Stores NOTES real graded submissions (the reference notes of ten fixture trials, graded by the
extension) through the store's API, 50 per transaction (repeated with the same ids when the store leaves
the outcome unknown); publishes corpus/scripts with one of the
ten trials retired (a new corpus hash); then runs the regrade once and prints its report, the
wall time and the notes regraded per second. Bounded: the regrade has a 30-minute limit; every
process started is stopped at the end.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import cluster
from cluster import REPO, graded_submissions, migrate_and_publish, publish, remove_root, start_stores, stop_nodes, \
    store_urls, submit_sql, submit_statement


def store(nodes, subs, per_request=50):
    insert = submit_sql()
    for k in range(0, len(subs), per_request):
        statements = [submit_statement(s, insert) for s in subs[k:k + per_request]]
        for attempt in range(10):
            status, body = nodes[attempt % len(nodes)].request("POST", "/v1/exec", {"statements": statements})
            if status == 200:
                break
            if status == 409:  # an unconfirmed attempt was stored after all: one at a time, a row met is stored
                for one in statements:
                    status, body = nodes[0].request("POST", "/v1/exec", {"statements": [one]})
                    if status not in (200, 409):
                        raise RuntimeError(f"storing note {one['params']['id']}: {status} {body}")
                break
            time.sleep(0.5)  # 503: outcome unknown; the same ids again
        else:
            raise RuntimeError(f"storing notes {k}..: {status} {body}")


def main():
    count = int(os.environ.get("NOTES", "2000"))
    fcgi = os.environ.get("FCGI", cluster.FCGI)
    root = tempfile.mkdtemp(prefix="scribe-regrade-bench-")
    nodes = []
    try:
        nodes = start_stores(root)
        migrate_and_publish(nodes)
        subs = graded_submissions(count)
        started = time.monotonic()
        store(nodes, subs)
        print(f"regrade_bench: {count} notes stored in {time.monotonic() - started:.1f} s", file=sys.stderr)
        stored = nodes[0].query("SELECT vendor, count(*) FROM submissions GROUP BY vendor ORDER BY vendor")
        if sum(n for _, n in stored) != count:
            raise RuntimeError(f"the store holds {stored}, not the {count} notes stored")
        corpus = os.path.join(root, "corpus")
        shutil.copytree(os.path.join(REPO, "corpus", "scripts"), corpus)
        os.remove(os.path.join(corpus, sorted({s["trial"] for s in subs})[-1] + ".yaml"))
        publish(nodes, corpus)
        started = time.monotonic()
        done = subprocess.run([fcgi, "--store", store_urls(nodes), "--db", os.path.join(root, "regrade.db"),
                               "--corpus", corpus, "--regrade"], cwd=REPO, env=dict(os.environ, SCRIBE_OFFLINE="1"),
                              capture_output=True, text=True, timeout=1800)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise RuntimeError(f"the regrade exited with {done.returncode}: {done.stderr}")
        report = json.loads(done.stdout)
        print(json.dumps(report))
        print(f"regrade_bench: {report['graded']} of {report['submissions']} notes regraded in {seconds:.2f} s "
              f"({report['graded'] / seconds:.0f} notes/s, {report['batches']} store transactions; {fcgi})")
    finally:
        stop_nodes(nodes)
        remove_root(root)


if __name__ == "__main__":
    main()
