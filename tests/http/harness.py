"""harness.py — start the real scribe-trials stack (scripts/serve: nginx + scribe-fcgi) for a test.

    stack = Stack(workers=4).start()      # free port on 127.0.0.1, temporary database
    reply = stack.request("GET", "/api/scripts")
    reply.status, reply.headers["content-type"], reply.json()
    stack.stop()                          # SIGTERM, as Ctrl-C would; checks everything ended

The stack runs from the build directory in SCRIBE_BUILD_DIR (ctest sets it) with
SCRIBE_SKIP_SETUP=1, so no packages are installed and nothing is rebuilt. Also here: a minimal
FastCGI client, to talk to the workers without nginx in front.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field

REPO = os.environ.get("SCRIBE_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("SCRIBE_BUILD_DIR") or os.path.join(REPO, "build")
PREFIX = "/scribe-trials"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Reply:
    status: int
    headers: dict  # lower-case names; repeated headers joined with ", "
    body: bytes
    raw_headers: list = field(default_factory=list)

    def json(self):
        return json.loads(self.body)

    def text(self):
        return self.body.decode("utf-8")


def _pids_with_parent(parent):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] != "Z" and int(fields[1]) == parent:
            pids.append(int(entry))
    return sorted(pids)


def _process_groups():
    """{pid: (comm, pgid)} of every live (non-zombie) process."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] != "Z":
            out[int(entry)] = (comm, int(fields[2]))
    return out


# The process groups of every stack this process started: scripts/serve's own group (with the
# FastCGI supervisor and workers) and nginx's (nginx leads its own group, see scripts/serve).
STARTED_GROUPS = set()


def leftover_processes(grace=5.0):
    """Processes still alive in any group a Stack started, after up to `grace` seconds:
    [(pid, comm, pgid)]. Empty when every stack ended everything it started."""
    deadline = time.monotonic() + grace
    while True:
        left = sorted((pid, comm, pgid) for pid, (comm, pgid) in _process_groups().items()
                      if pgid in STARTED_GROUPS and pid != os.getpid())
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


class Stack:
    def __init__(self, *, workers=4, read_workers=2, submit_rate="100000r/s", submit_burst=100000,
                 submit_concurrency=10000, corpus=None, extra_env=None, db_path=None):
        self.tmp = tempfile.mkdtemp(prefix="scribe-http-")
        self.port = free_port()
        self.db_path = db_path or os.path.join(self.tmp, "test.db")
        self.run_dir = os.path.join(self.tmp, "run")
        self.log_path = os.path.join(self.tmp, "serve.log")
        self.env = dict(os.environ)
        self.env.update({
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "SCRIBE_DB": self.db_path,
            "SCRIBE_RUN_DIR": self.run_dir,
            "SCRIBE_BUILD_DIR": BUILD_DIR,
            "SCRIBE_SKIP_SETUP": "1",
            "SCRIBE_WORKERS": str(workers),
            "SCRIBE_READ_WORKERS": str(read_workers),
            "SCRIBE_SUBMIT_RATE": submit_rate,
            "SCRIBE_SUBMIT_BURST": str(submit_burst),
            "SCRIBE_SUBMIT_CONCURRENCY": str(submit_concurrency),
            "SCRIBE_OFFLINE": "1",
        })
        if corpus:
            self.env["SCRIBE_CORPUS"] = corpus
        self.env.update(extra_env or {})
        self.workers = workers + read_workers  # every worker process of the supervisor
        self.proc = None
        self.log = open(os.devnull, "wb")
        self.base = f"http://127.0.0.1:{self.port}{PREFIX}"

    def start(self, timeout=30):
        self.log.close()
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([os.path.join(REPO, "scripts", "serve")], cwd=REPO, env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                message = f"scripts/serve exited with {self.proc.returncode}:\n{self.read_log()}"
                self.cleanup()
                raise RuntimeError(message)
            try:
                if self.request("GET", "/health").status == 200 and len(self.worker_pids()) == self.workers:
                    STARTED_GROUPS.update({self.proc.pid, self.nginx_pid()})
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        message = f"stack did not become healthy in {timeout}s:\n{self.read_log()}"
        self.cleanup()
        raise RuntimeError(message)

    def read_log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def supervisor_pid(self):
        with open(os.path.join(self.run_dir, "scribe-fcgi.pid")) as f:
            return int(f.read())

    def nginx_pid(self):
        with open(os.path.join(self.run_dir, "nginx.pid")) as f:
            return int(f.read())

    def worker_pids(self):
        try:
            return _pids_with_parent(self.supervisor_pid())
        except (OSError, ValueError):
            return []

    def socket_path(self):
        """The submit workers' FastCGI socket."""
        return os.path.join(self.run_dir, "fcgi.sock")

    def read_socket_path(self):
        """The socket of the workers serving every other route."""
        return os.path.join(self.run_dir, "fcgi-read.sock")

    def stop(self, timeout=15):
        """SIGTERM to scripts/serve; returns its exit status and the pids that were running."""
        if not self.proc:
            return None
        pids = [self.supervisor_pid(), self.nginx_pid()] + self.worker_pids()
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.proc = None
        self.log.close()
        return status, pids

    def kill(self):
        """Last resort: SIGKILL the stack's own process group."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def cleanup(self):
        self.kill()
        if not self.log.closed:
            self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # HTTP through nginx ----------------------------------------------------------------------
    def request(self, method, path, body=None, headers=None, conn=None, prefix=PREFIX):
        own = conn is None
        if own:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            if isinstance(body, str):
                body = body.encode("utf-8")
            conn.request(method, prefix + path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            merged = {}
            for k, v in r.getheaders():
                k = k.lower()
                merged[k] = merged[k] + ", " + v if k in merged else v
            return Reply(r.status, merged, data, r.getheaders())
        finally:
            if own:
                conn.close()

    def submit(self, script_id, vendor, scribe_output, conn=None):
        body = json.dumps({"script_id": script_id, "vendor": vendor, "scribe_output": scribe_output}, ensure_ascii=False)
        return self.request("POST", "/api/submit", body, {"Content-Type": "application/json"}, conn=conn)

    def db(self):
        return sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)

    def count_submissions(self):
        with self.db() as c:
            return c.execute("SELECT count(*) FROM submissions").fetchone()[0]

    # FastCGI straight to the workers ---------------------------------------------------------
    def fastcgi(self, params, stdin=b""):
        return fastcgi_request(self.socket_path(), params, stdin)

    def read_worker(self, path, headers=None):
        """GET `path` from the read workers themselves, past nginx and its edge cache: what the
        program answers now. A Reply like request()'s (lower-case header names)."""
        route, _, query = (PREFIX + path).partition("?")
        # nginx passes the decoded path (its $document_uri)
        params = {"REQUEST_METHOD": "GET", "DOCUMENT_URI": urllib.parse.unquote(route), "QUERY_STRING": query}
        for name, value in (headers or {}).items():
            params["HTTP_" + name.upper().replace("-", "_")] = value
        stdout, _ = fastcgi_request(self.read_socket_path(), params)
        lines, body = parse_cgi(stdout)
        status = int(lines[0].split()[1])
        merged = {}
        for line in lines[1:]:
            k, _, v = line.partition(": ")
            merged[k.lower()] = merged[k.lower()] + ", " + v if k.lower() in merged else v
        return Reply(status, merged, body, lines[1:])


def cluster_mode():
    """True when SCRIBE_HTTP_STACK=cluster: the HTTP suites that can run against a cluster
    (tests/cluster/test_http_suite.py) start one instead of scripts/serve."""
    kind = os.environ.get("SCRIBE_HTTP_STACK", "single")
    if kind not in ("single", "cluster"):
        raise ValueError(f"SCRIBE_HTTP_STACK is single or cluster, not {kind!r}")
    return kind == "cluster"


def make_stack(**options):
    """A started stack: the single machine (Stack: scripts/serve), or with SCRIBE_HTTP_STACK=cluster
    a cluster with the same interface (tests/cluster/cluster.py, ClusterStack)."""
    if not cluster_mode():
        return Stack(**options).start()
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
    from cluster import ClusterStack
    return ClusterStack(**options).start()


def fastcgi_request(socket_path, params, stdin=b"", timeout=30):
    """One FastCGI responder request; returns (raw stdout bytes, app status). `socket_path`: a
    Unix socket's path, or a (host, port) tuple for a program listening on TCP (a cluster's
    grader)."""
    def record(kind, content, request_id=1):
        return struct.pack(">BBHHBB", 1, kind, request_id, len(content), 0, 0) + content

    def length(n):
        return bytes([n]) if n < 128 else struct.pack(">I", n | 0x80000000)

    pairs = b"".join(length(len(k)) + length(len(v)) + k + v
                     for k, v in ((k.encode(), v.encode()) for k, v in params.items()))
    out = record(1, struct.pack(">HB5x", 1, 0))  # BEGIN_REQUEST, role responder, no keep-conn
    out += record(4, pairs) + record(4, b"")
    for i in range(0, len(stdin), 32768):
        out += record(5, stdin[i:i + 32768])
    out += record(5, b"")
    with socket.socket(socket.AF_UNIX if isinstance(socket_path, str) else socket.AF_INET) as s:
        s.settimeout(timeout)
        s.connect(socket_path)
        try:
            s.sendall(out)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the app may answer and close without reading a refused body
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    stdout, app_status, pos = b"", None, 0
    while pos + 8 <= len(data):
        _, kind, _, clen, plen, _ = struct.unpack(">BBHHBB", data[pos:pos + 8])
        content = data[pos + 8:pos + 8 + clen]
        pos += 8 + clen + plen
        if kind == 6:
            stdout += content
        elif kind == 3:
            app_status = struct.unpack(">I", content[:4])[0]
    return stdout, app_status


def parse_cgi(stdout):
    """Splits a CGI response into (header lines in order, body)."""
    head, _, body = stdout.partition(b"\r\n\r\n")
    return head.decode("latin-1").split("\r\n"), body
