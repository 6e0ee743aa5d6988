"""cluster.py — the pieces of a one-machine cluster for tests/cluster: store voters
(`scribe-store serve` on 127.0.0.1-3), graders (`scribe-fcgi --store` on TCP), an nginx edge, and
real graded submissions; and ClusterStack, all of them behind tests/http/harness.py's Stack
interface, so tests/http/test_api.py runs against a cluster (tests/cluster/test_http_suite.py).
Every wait is bounded (wait_for)."""


import contextlib
import http.client
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
import harness  # noqa: E402  (tests/http: Reply, the FastCGI client, the process-group bookkeeping)

REPO = os.environ.get("SCRIBE_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("SCRIBE_BUILD_DIR") or os.path.join(REPO, "build")
STORE = os.path.join(BUILD_DIR, "cluster", "scribe-store")
EXTENSION = os.path.join(BUILD_DIR, "scribe.so")
HOSTS = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
REQUEST_TIMEOUT = 3  # the store's -timeout, seconds


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for(what, predicate, limit=60.0, every=0.1):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"gave up after {limit:.0f} s waiting for {what}")


class Node:
    def __init__(self, index, root):
        self.index = index
        self.host = HOSTS[index]
        self.dir = os.path.join(root, f"node{index + 1}")
        self.raft = f"{self.host}:{free_port(self.host)}"
        self.http = (self.host, free_port(self.host))
        self.log = os.path.join(root, f"node{index + 1}.log")
        self.proc = None

    def start(self, join=None, allow=None):
        args = [STORE, "serve", "-dir", self.dir, "-raft", self.raft, "-http", f"{self.http[0]}:{self.http[1]}",
                "-extension", EXTENSION, "-roles-every", "1s", "-timeout", f"{REQUEST_TIMEOUT}s"]
        if join:
            args += ["-join", join]
        if allow:
            args += ["-allow", allow]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=20)

    def request(self, method, path, body=None, source=None, timeout=REQUEST_TIMEOUT + 7):
        conn = http.client.HTTPConnection(*self.http, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        try:
            data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            reply = conn.getresponse()
            return reply.status, json.loads(reply.read() or b"null")
        finally:
            conn.close()

    def query(self, sql, **params):
        status, body = self.request("POST", "/v1/query", {"sql": sql, "params": params})
        assert status == 200, (status, body)
        return body["rows"]


_graded = []


def graded_submissions(count):
    """`count` submissions whose results the real grader made: each of ten fixture trials'
    reference note graded offline (the sqlite3 shell with the extension, in a scratch database),
    under vendor names that include hostile ones. Every submission has a new id."""
    if not _graded:
        scratch = tempfile.mkdtemp()
        try:
            path = os.path.join(scratch, "grade.db")
            db = sqlite3.connect(path)
            db.execute("CREATE TABLE cluster_test_notes (trial TEXT, note TEXT)")
            notes_dir = os.path.join(REPO, "tests", "fixtures", "notes")
            for trial in sorted(os.listdir(notes_dir))[:10]:
                with open(os.path.join(notes_dir, trial, "reference.txt"), encoding="utf-8") as f:
                    db.execute("INSERT INTO cluster_test_notes VALUES (?, ?)", (trial, f.read()))
            db.commit()
            db.close()
            env = dict(os.environ, SCRIBE_OFFLINE="1")
            shell = ["sqlite3", "-bail", path, f".load {EXTENSION}"]
            subprocess.run(shell + ["select scribe_load_corpus('corpus/scripts')"], cwd=REPO, env=env, check=True,
                           capture_output=True, timeout=120)
            out = subprocess.run(shell + [".mode json", "select trial, note, grade_submission(trial, note) AS result "
                                          "from cluster_test_notes order by trial"],
                                 cwd=REPO, env=env, check=True, capture_output=True, text=True, timeout=120)
            _graded.extend((r["trial"], r["note"], r["result"]) for r in json.loads(out.stdout))
        finally:
            shutil.rmtree(scratch)
    graded = _graded
    vendors = ["Acme Scribe", "Careful Notes", "<script>alert(1)</script>", "Robert'); DROP TABLE submissions;--",
               "<svg onload=alert(1)>", "../../etc/passwd", "ＡＣＭＥ Ｗｉｄｅ", "Plain Vendor"]
    out = []
    for k in range(count):
        trial, note, result = graded[k % len(graded)]
        out.append({"id": secrets.token_hex(8), "vendor": vendors[k % len(vendors)], "scribe_output": note,
                    "result": result, "trial": trial})
    return out


def submit_sql():
    with open(os.path.join(REPO, "sql", "endpoints", "submit.sql"), encoding="utf-8") as f:
        text = f.read()
    # dqlite replicates a write only through an exec request, which returns no rows: the row is
    # read back with a query instead of RETURNING.
    return re.sub(r"\s*RETURNING[^;]*;\s*$", ";", text)




FCGI = os.path.join(BUILD_DIR, "scribe-fcgi")
PREFIX = "/scribe-trials"


def submit_statement(sub, insert=None):
    """The /v1/exec statement that stores `sub` (graded_submissions) with sql/endpoints/submit.sql,
    as a grader sends it, the program's optional columns left to SQL. `insert`: submit_sql(),
    when the caller has read it once already."""
    params = {"id": sub["id"], "vendor": sub["vendor"], "scribe_output": sub["scribe_output"],
              "result": sub["result"], "created_at": "2026-12-03T12:00:00.000Z", "vendor_key": None,
              "note_sha256": None, "stored_result": None, "columns_given": None, "script_id": None,
              "kind": None, "corpus_hash": None, "grader_version": None, "score_total": None,
              "score_drug": None, "score_mental": None, "score_fabrication": None, "unsafe": None}
    return {"sql": insert or submit_sql(), "params": params}


def start_stores(root):
    """Three voters: the first bootstraps, the others join it; returns them once all three
    answer and count three voters."""
    nodes = [Node(i, root) for i in range(3)]
    nodes[0].start()
    wait_for("the first store node", lambda: status_of(nodes[0])[0] == 200)
    for node in nodes[1:]:
        node.start(join=nodes[0].raft)
    wait_voters(nodes, 3)
    return nodes


def stop_nodes(nodes):
    """SIGTERM to every running store node, SIGKILL to any still running 15 s later."""
    for node in nodes:
        if node.alive():
            node.proc.terminate()
    for node in nodes:
        if node.proc is not None:
            try:
                node.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                node.proc.kill()
                node.proc.wait()


def remove_root(root):
    """The test's directory, unless SCRIBE_KEEP_CLUSTER asks to keep it for a post-mortem."""
    if os.environ.get("SCRIBE_KEEP_CLUSTER"):
        print(f"cluster directory kept: {root}", file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def status_of(node):
    try:
        return node.request("GET", "/v1/status", timeout=5)
    except OSError:
        return None, None


def wait_voters(nodes, n):
    """Until every running node answers and each counts n voters in the configuration."""
    def voters():
        for node in nodes:
            if not node.alive():
                continue
            status, body = status_of(node)
            if status != 200 or sum(m["role"] == "voter" for m in body["nodes"]) != n:
                return False
        return True
    wait_for(f"{n} voters", voters)


def leader_of(nodes):
    def find():
        for node in nodes:
            if node.alive():
                status, body = status_of(node)
                if status == 200 and body["leader"]:
                    return next((c for c in nodes if c.raft == body["leader"]["address"]), None)
        return None
    return wait_for("a leader", find)


def migrate_and_publish(nodes, corpus="corpus/scripts", sealed=None):
    """The schema and the corpus, as plain SQL through the store (scribe-store migrate,
    cluster/publish | scribe-store sql)."""
    cluster = ",".join(n.raft for n in nodes)
    subprocess.run([STORE, "migrate", "-cluster", cluster, "-schema", "sql/schema.sql"], cwd=REPO, check=True,
                   capture_output=True, timeout=60)
    publish(nodes, corpus, sealed)


def publish(nodes, corpus, sealed=None):
    """cluster/publish CORPUS [SEALED] | scribe-store sql: the corpus (with the sealed trials kept
    in SEALED) becomes the store's current one."""
    printed = subprocess.run([os.path.join(REPO, "cluster", "publish"), corpus] + ([sealed] if sealed else []),
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    if printed.returncode != 0:
        raise RuntimeError(f"cluster/publish failed: {printed.stderr}")
    done = store_sql(nodes, printed.stdout)
    if done.returncode != 0:
        raise RuntimeError(f"scribe-store sql failed publishing {corpus}: {done.stderr}")


def store_sql(nodes, text, timeout=120):
    """`scribe-store sql -cluster … -file -` with `text` on its standard input (statements run in
    one transaction on the leader, as publish's are): the CompletedProcess, text mode."""
    cluster = ",".join(n.raft for n in nodes)
    return subprocess.run([STORE, "sql", "-cluster", cluster, "-file", "-"], cwd=REPO, input=text, text=True,
                          capture_output=True, timeout=timeout)


def store_urls(nodes):
    """The nodes' API addresses as scribe-fcgi's --store takes them."""
    return ",".join(f"http://{n.http[0]}:{n.http[1]}" for n in nodes)


def regrade(stores, db, corpus, extra=()):
    """scribe-fcgi --store … --regrade (offline grading) with its own grader file `db`:
    (exit status, stdout, stderr)."""
    done = subprocess.run([FCGI, "--store", store_urls(stores), "--db", db, "--corpus", corpus, "--regrade", *extra],
                          cwd=REPO, env=dict(os.environ, SCRIBE_OFFLINE="1"), capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


class Grader:
    """scribe-fcgi in cluster mode on 127.0.0.x: a submit socket and a read socket on TCP, its
    own SQLite file for the corpus, the record on the store."""

    def __init__(self, index, root, stores, corpus="corpus/scripts", sealed=None, workers=1, read_workers=2):
        self.index = index
        self.corpus = corpus
        self.sealed = sealed
        self.workers = workers
        self.read_workers = read_workers
        self.host = HOSTS[index]
        self.submit = f"{self.host}:{free_port(self.host)}"
        self.read = f"{self.host}:{free_port(self.host)}"
        self.db = os.path.join(root, f"grader{index + 1}.db")
        self.log = os.path.join(root, f"grader{index + 1}.log")
        self.stores = store_urls(stores)
        self.proc = None

    def start(self):
        env = dict(os.environ, SCRIBE_OFFLINE="1")
        args = [FCGI, "--socket", self.submit, "--read-socket", self.read, "--db", self.db, "--corpus", self.corpus,
                "--store", self.stores, "--workers", str(self.workers), "--read-workers", str(self.read_workers),
                "--allow", "127.0.0.1"]
        if self.sealed:
            args += ["--sealed-corpus", self.sealed]
        with open(self.log, "a") as log:
            before = log.tell()  # the log of an earlier start stays above
            self.proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)

        def listening():
            if self.proc.poll() is not None:
                raise RuntimeError(f"grader {self.host} exited with {self.proc.returncode}; see {self.log}")
            with open(self.log) as f:
                f.seek(before)
                return f.read().count("listening on") >= 2
        wait_for(f"grader {self.host}", listening)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL to the supervisor and every worker (its process group)."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=20)

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


class Edge:
    """nginx rendered from nginx/nginx.conf.template with the graders as its upstream groups."""

    def __init__(self, root, graders, audio_dir=None, submit_rate="100000r/s", submit_burst=100000):
        """`root`: the test's directory (the edge's files go in root/edge); `audio_dir`: the
        recordings it serves (scripts/serve's <corpus>/../audio; default corpus/audio);
        `submit_rate`, `submit_burst`: nginx's per-address submit limit (scripts/serve's)."""
        self.dir = os.path.join(root, "edge")
        self.port = free_port("127.0.0.1")
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(self.port), SUBMIT_RATE=submit_rate,
                   SUBMIT_BURST=str(submit_burst),
                   SUBMIT_CONCURRENCY="10000",
                   FCGI_SUBMIT_SERVERS=" ".join(f"server {g.submit} max_fails=1 fail_timeout=5s;" for g in graders),
                   FCGI_READ_SERVERS=" ".join(f"server {g.read} max_fails=1 fail_timeout=5s;" for g in graders))
        if audio_dir:
            env["AUDIO_DIR"] = os.path.realpath(audio_dir)
        subprocess.run(["bash", "-c", 'source scripts/lib.sh && scribe_render_nginx "$1"', "_", self.dir], cwd=REPO,
                       env=env, check=True, timeout=30)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["nginx", "-p", self.dir, "-e", os.path.join(self.dir, "nginx-error.log"), "-c",
                                      os.path.join(self.dir, "nginx.conf")], cwd=REPO, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def up():
            try:
                return self.request("GET", "/health")[0] == 200
            except OSError:
                return False
        wait_for("the edge", up)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGQUIT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            data = json.dumps(body).encode() if isinstance(body, dict) else body
            hdrs = dict(headers or {})
            if isinstance(body, dict):
                hdrs["Content-Type"] = "application/json"
            conn.request(method, PREFIX + path, body=data, headers=hdrs)
            reply = conn.getresponse()
            return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
        finally:
            conn.close()


class _Rows:
    """A query's rows as a sqlite3 cursor hands them out: tuples, fetchone() and fetchall()."""

    def __init__(self, rows):
        self.rows = [tuple(r) for r in rows]

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return list(self.rows)


class StoreDb:
    """What the HTTP tests do with harness.Stack.db() (a read-only sqlite3 connection:
    `with stack.db() as db: db.execute(sql, params).fetchone()`), answered by a store node's
    /v1/query. The store binds named parameters only: each positional "?" becomes ?1, ?2, …"""

    def __init__(self, nodes):
        self.nodes = nodes

    def execute(self, sql, params=()):
        numbers = itertools.count(1)
        numbered = re.sub(r"\?(?!\d)", lambda _: f"?{next(numbers)}", sql)
        node = next(n for n in self.nodes if n.alive())
        return _Rows(node.query(numbered, **{f"?{i}": v for i, v in enumerate(params, 1)}))

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class ClusterStack:
    """harness.Stack's interface (what tests/http/test_api.py uses) on a one-machine cluster:
    three store voters, `graders` graders (`scribe-fcgi --store`, FastCGI over TCP) and one nginx
    edge rendered from scripts/serve's template.

        stack = ClusterStack(corpus=dir, workers=2).start()
        stack.request("GET", "/api/scripts")       # through the edge, a harness.Reply
        stack.db().execute(sql, params)            # a read on the store
        stack.stop(); stack.cleanup()

    `corpus` (default corpus/scripts) is published to the store and is every grader's --corpus;
    its recordings (<corpus>/../audio) are the edge's. `workers`/`read_workers` are each grader's;
    `submit_rate`/`submit_burst` the edge's limit, as Stack's.
    `extra_env` takes SCRIBE_SEALED_CORPUS (published with the corpus, each grader's
    --sealed-corpus), as scripts/serve does."""

    def __init__(self, *, workers=1, read_workers=2, corpus=None, extra_env=None, graders=2,
                 submit_rate="100000r/s", submit_burst=100000):
        extra = dict(extra_env or {})
        self.sealed = extra.pop("SCRIBE_SEALED_CORPUS", None)
        if extra:
            raise ValueError(f"ClusterStack does not take {sorted(extra)}")
        self.tmp = tempfile.mkdtemp(prefix="scribe-cluster-api-")
        self.corpus = corpus or "corpus/scripts"
        self.workers, self.read_workers, self.grader_count = workers, read_workers, graders
        self.submit_rate, self.submit_burst = submit_rate, submit_burst
        self.stores, self.graders, self.edge = [], [], None
        self.port = None
        self.base = None
        self._submit_turn = itertools.count()
        self._read_turn = itertools.count()

    def start(self):
        for path in (STORE, EXTENSION, FCGI):
            if not os.path.exists(path):
                raise RuntimeError(f"{path} is missing: run scripts/test-cluster")
        try:
            self.stores = start_stores(self.tmp)
            self._track(self.stores)
            migrate_and_publish(self.stores, self.corpus, self.sealed)
            self.graders = [Grader(i, self.tmp, self.stores, corpus=self.corpus, sealed=self.sealed,
                                   workers=self.workers, read_workers=self.read_workers)
                            for i in range(self.grader_count)]
            for g in self.graders:
                g.start()
                self._track([g])
            audio = os.path.join(self.corpus if os.path.isabs(self.corpus) else os.path.join(REPO, self.corpus),
                                 "..", "audio")
            self.edge = Edge(self.tmp, self.graders, audio_dir=audio, submit_rate=self.submit_rate,
                             submit_burst=self.submit_burst)
            self.edge.start()
            self._track([self.edge])
        except BaseException:
            self.cleanup()
            raise
        self.port = self.edge.port
        self.base = f"http://127.0.0.1:{self.port}{PREFIX}"
        return self

    @staticmethod
    def _track(parts):
        """Every part leads its own process group: harness.leftover_processes checks them."""
        harness.STARTED_GROUPS.update(p.proc.pid for p in parts)

    def stop(self):
        """Edge, graders, then the store, each asked to stop (SIGQUIT, SIGTERM), killed when it
        does not within its limit."""
        if self.edge:
            self.edge.stop()
        for g in self.graders:
            g.stop()
        stop_nodes(self.stores)

    def cleanup(self):
        """Whatever still runs is killed; the cluster's directory is removed (SCRIBE_KEEP_CLUSTER
        keeps it)."""
        if self.edge and self.edge.proc and self.edge.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.edge.proc.pid, signal.SIGKILL)
            self.edge.proc.wait(timeout=20)
        for part in self.graders:
            if part.alive():
                with contextlib.suppress(ProcessLookupError):
                    part.kill()
        for node in self.stores:
            if node.alive():
                node.kill()
        remove_root(self.tmp)

    # Stack's own code, unchanged: it needs only port, db(), socket_path() and read_socket_path().
    request = harness.Stack.request
    submit = harness.Stack.submit
    count_submissions = harness.Stack.count_submissions
    fastcgi = harness.Stack.fastcgi
    read_worker = harness.Stack.read_worker

    def db(self):
        """The record, read on the store (harness.Stack.db's interface)."""
        return StoreDb(self.stores)

    def write_sql(self, text):
        """Statements run on the store past the program (an analyst's `scribe-store sql`)."""
        return store_sql(self.stores, text)

    def socket_path(self):
        """A grader's submit address, (host, port): the graders in turn, as nginx spreads them."""
        g = self.graders[next(self._submit_turn) % len(self.graders)]
        host, port = g.submit.rsplit(":", 1)
        return host, int(port)

    def read_socket_path(self):
        """A grader's read address, (host, port): the graders in turn."""
        g = self.graders[next(self._read_turn) % len(self.graders)]
        host, port = g.read.rsplit(":", 1)
        return host, int(port)

    def read_log(self):
        """Every grader's log, one after the other."""
        out = []
        for g in self.graders:
            with open(g.log, "rb") as f:
                out.append(f.read().decode("utf-8", "replace"))
        return "".join(out)

    @contextlib.contextmanager
    def graders_stopped(self):
        """Every grader stopped for the block (nginx has no upstream it can reach), started again
        after it, and back in the edge's upstream groups when this returns: the edge takes a
        grader that failed a request out for fail_timeout=5s (docs/scale-out.md, Roles: "Edges"),
        counted in nginx's whole seconds, in each of its worker processes, so this waits 6.5 s
        after the block's last request before the next test's requests reach the edge."""
        for g in self.graders:
            g.stop()
        try:
            yield
        finally:
            ended = time.monotonic()
            for g in self.graders:
                g.start()
                self._track([g])
            time.sleep(max(0.0, 6.5 - (time.monotonic() - ended)))


NOTES = os.path.join(REPO, "tests", "fixtures", "notes")
TRIALS = sorted(os.listdir(NOTES))[:10]  # the trials the cluster tests submit to


def note_for(trial, marker):
    """The trial's reference note with a line that makes it unique (so a duplicate is visible)."""
    with open(os.path.join(NOTES, trial, "reference.txt"), encoding="utf-8") as f:
        return f.read() + f"\nVisit reference: {marker}\n"


class EdgeCluster(unittest.TestCase):
    """A test class's cluster: three store voters, two graders and one nginx edge, started once
    (setUpClass) and stopped at the end, also on failure (tearDownClass). A subclass may route
    each grader's store traffic elsewhere (`store_targets`, objects with an `.http` (host, port))
    and start and stop what that needs (`start_links`, `stop_links`)."""

    prefix = "scribe-cluster-"

    @classmethod
    def start_links(cls):
        pass

    @classmethod
    def stop_links(cls):
        pass

    @classmethod
    def store_targets(cls, grader):
        return cls.stores

    @classmethod
    def setUpClass(cls):
        for path in (STORE, EXTENSION, FCGI):
            if not os.path.exists(path):
                raise unittest.SkipTest(f"{path} is missing: run scripts/test-cluster")
        cls.root = tempfile.mkdtemp(prefix=cls.prefix)
        cls.stores, cls.graders, cls.edge = [], [], None
        try:
            cls.stores = start_stores(cls.root)
            migrate_and_publish(cls.stores)
            cls.start_links()
            cls.graders = [Grader(i, cls.root, cls.store_targets(i)) for i in range(2)]
            for g in cls.graders:
                g.start()
            cls.edge = Edge(cls.root, cls.graders)
            cls.edge.start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.edge:
                cls.edge.stop()
            for g in cls.graders:
                g.stop()
            cls.stop_links()
        finally:
            stop_nodes(cls.stores)
            remove_root(cls.root)

    def submit_notes(self, count, work, workers=8, on_answer=None):
        """work(trial, marker) for `count` notes (TRIALS in turn, each with a unique marker),
        `workers` at a time: [what work returned], in completion order; on_answer(n) after the
        n-th. Fails the test when a submitter is still busy after 10 minutes."""
        jobs = [(TRIALS[k % len(TRIALS)], secrets.token_hex(6)) for k in range(count)]
        answers, lock = [], threading.Lock()

        def run():
            while True:
                with lock:
                    if not jobs:
                        return
                    trial, marker = jobs.pop()
                answer = work(trial, marker)
                with lock:
                    answers.append(answer)
                    n = len(answers)
                if on_answer:
                    on_answer(n)

        threads = [threading.Thread(target=run) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        self.assertFalse(any(t.is_alive() for t in threads), "a submitter is stuck")
        return answers

    def store_rows(self, sql, **params):
        """A read on the store, straight to a live node."""
        node = next(n for n in self.stores if n.alive())
        return node.query(sql, **params)
