#!/usr/bin/env python3
"""fake_upstream.py — a fake RxNav + openFDA server on 127.0.0.1 for the live-validation tests.

    python3 tests/rxnav/fake_upstream.py [--port 0] [--lifetime 120] [--silent]
                                         [--mode rxnav=500,openfda=ok] [--slow-seconds 30]
                                         [--tls-cert cert.pem --tls-key key.pem]

Prints "port N" on its first line once it listens, then serves until --lifetime seconds have
passed (it always stops by itself). Standard library only; never contacts any other host.

Point the extension at it with SCRIBE_RXNAV_URL=http://127.0.0.1:N/REST and
SCRIBE_OPENFDA_URL=http://127.0.0.1:N. It replays responses in the real shapes from
tests/fixtures/rxnav and tests/fixtures/openfda (see the README there):

  GET /REST/version.json                         fixtures/rxnav/version.json
  GET /REST/approximateTerm.json?term=T          fixtures/rxnav/approximateTerm/<slug(T)>.json,
                                                 else the no-hit answer {"approximateGroup":{"inputTerm":null}}
  GET /REST/rxcui/ID/properties.json             built from fixtures/rxnav/concepts.tsv, else {}
  GET /REST/rxcui/ID/related.json?tty=IN         built from fixtures/rxnav/concepts.tsv
  GET /drug/ndc.json?search=generic_name:"X"     fixtures/openfda/ndc/<slug(X)>.json, else 404 NOT_FOUND

Misbehaviour, per approximateTerm term (fixtures/rxnav/modes.json: "slowdrug" is slow, ...)
or for a whole upstream (--mode, or GET /_mode?rxnav=500&openfda=ok at run time):
  ok, slow (sleeps --slow-seconds), 500, 403 (rate limit), 429, malformed (cut-off JSON),
  oversized (2 MiB with Content-Length), oversized-chunked (2 MiB, chunked, no length).

  GET /_stats   {"rxnav": n, "openfda": n, "connections": n, "log": [[seconds, path], ...]}
                (requests received; /_stats and /_mode are not counted)

--silent turns it into a raw socket listener that accepts connections and never answers
(the "upstream silent" case). A refused upstream needs no server: use a port nobody listens on.
"""

import argparse
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
MODES = ("ok", "slow", "500", "403", "429", "malformed", "oversized", "oversized-chunked")
OVERSIZED_BYTES = 2 * 1024 * 1024


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def load_json(*parts):
    with open(os.path.join(FIXTURES, *parts), encoding="utf-8") as f:
        return json.load(f)


def load_concepts():
    concepts = {}
    with open(os.path.join(FIXTURES, "rxnav", "concepts.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rxcui, tty, name, ingredient = line.rstrip("\n").split("\t")
            concepts[rxcui] = {"rxcui": rxcui, "tty": tty, "name": name, "ingredient": ingredient}
    return concepts


class State:
    def __init__(self, modes, slow_seconds):
        self.lock = threading.Lock()
        self.modes = modes  # upstream -> mode
        self.slow_seconds = slow_seconds
        self.counts = {"rxnav": 0, "openfda": 0}
        self.connections = 0
        self.log = []
        self.start = time.monotonic()
        self.concepts = load_concepts()
        self.term_modes = {k: v for k, v in load_json("rxnav", "modes.json").items() if not k.startswith("_")}


def concept_properties(c):
    return {"rxcui": c["rxcui"], "name": c["name"], "synonym": "", "tty": c["tty"],
            "language": "ENG", "suppress": "N", "umlscui": ""}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so the client's connection reuse is exercised
    disable_nagle_algorithm = True  # headers and body leave at once (no delayed-ACK stalls)
    state = None  # set by main

    def log_message(self, *args):  # quiet
        pass

    def setup(self):
        super().setup()
        with self.state.lock:
            self.state.connections += 1

    def send_body(self, status, body, content_type="application/json", chunked=False):
        data = body if isinstance(body, bytes) else body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            step = 64 * 1024
            try:
                for i in range(0, len(data), step):
                    piece = data[i:i + step]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def send_json(self, status, obj):
        self.send_body(status, json.dumps(obj))

    def misbehave(self, mode):
        """Answers per a failure mode; returns False for "ok" (answer normally)."""
        if mode == "ok":
            return False
        if mode == "slow":
            time.sleep(self.state.slow_seconds)
            self.send_json(200, {"approximateGroup": {"inputTerm": None}})
        elif mode == "500":
            self.send_body(500, "<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html")
        elif mode == "403":
            self.send_json(403, {"error": {"code": "OVER_RATE_LIMIT",
                                           "message": "You have exceeded your rate limit. Try again later."}})
        elif mode == "429":
            self.send_json(429, {"error": {"code": "OVER_RATE_LIMIT",
                                           "message": "You have exceeded your rate limit. Try again later."}})
        elif mode == "malformed":
            self.send_body(200, '{"approximateGroup": {"inputTerm": null, "candidate": [{"rxcui": "36437", "ra')
        elif mode in ("oversized", "oversized-chunked"):
            pad = '{"rxcui": "36437", "rxaui": "0", "score": "1", "rank": "1"},'
            body = '{"approximateGroup": {"inputTerm": null, "candidate": [' + pad * (OVERSIZED_BYTES // len(pad) + 1)
            body = body[:-1] + "]}}"
            self.send_body(200, body, chunked=(mode == "oversized-chunked"))
        return True

    def do_GET(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        path = url.path
        st = self.state
        if path == "/_stats":
            with st.lock:
                self.send_json(200, {**st.counts, "connections": st.connections, "log": st.log})
            return
        if path == "/_mode":
            with st.lock:
                for upstream in ("rxnav", "openfda"):
                    if upstream in query and query[upstream][0] in MODES:
                        st.modes[upstream] = query[upstream][0]
                if "slow_seconds" in query:
                    st.slow_seconds = float(query["slow_seconds"][0])
            self.send_json(200, {"ok": True, "modes": st.modes})
            return
        upstream = "rxnav" if path.startswith("/REST/") else "openfda" if path.startswith("/drug/") else None
        if upstream is None:
            self.send_json(404, {"error": {"code": "NOT_FOUND", "message": "no such path"}})
            return
        with st.lock:
            st.counts[upstream] += 1
            st.log.append([round(time.monotonic() - st.start, 6), self.path])
            mode = st.modes.get(upstream, "ok")
        if self.misbehave(mode):
            return
        if upstream == "rxnav":
            self.rxnav(path, query)
        else:
            self.openfda(path, query)

    def rxnav(self, path, query):
        st = self.state
        if path == "/REST/version.json":
            self.send_json(200, load_json("rxnav", "version.json"))
            return
        if path == "/REST/approximateTerm.json":
            term = query.get("term", [""])[0]
            if self.misbehave(st.term_modes.get(slug(term), "ok")):
                return
            name = slug(term) + ".json"
            if term and os.path.exists(os.path.join(FIXTURES, "rxnav", "approximateTerm", name)):
                self.send_json(200, load_json("rxnav", "approximateTerm", name))
            else:
                self.send_json(200, load_json("rxnav", "approximateTerm", "_nohit.json"))
            return
        m = re.fullmatch(r"/REST/rxcui/(\d+)/(properties|related)\.json", path)
        if m:
            c = st.concepts.get(m.group(1))
            if m.group(2) == "properties":
                self.send_json(200, {"properties": concept_properties(c)} if c else {})
                return
            ttys = query.get("tty", [""])[0].replace("+", " ").split()
            groups = []
            for tty in ttys:
                group = {"tty": tty}
                if c and tty == "IN" and c["ingredient"] in st.concepts:
                    group["conceptProperties"] = [concept_properties(st.concepts[c["ingredient"]])]
                groups.append(group)
            self.send_json(200, {"relatedGroup": {"rxcui": None, "termType": ttys, "conceptGroup": groups}})
            return
        self.send_json(404, {"error": "not found"})

    def openfda(self, path, query):
        if path != "/drug/ndc.json":
            self.send_json(404, {"error": {"code": "NOT_FOUND", "message": "No matches found!"}})
            return
        names = re.findall(r'generic_name:"([^"]+)"', query.get("search", [""])[0])
        name = slug(" ".join(sorted(names))) + ".json"
        if names and os.path.exists(os.path.join(FIXTURES, "openfda", "ndc", name)):
            self.send_json(200, load_json("openfda", "ndc", name))
        else:
            self.send_json(404, load_json("openfda", "not_found.json"))


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # clients that time out or give up on a huge body close their end: not an error here
        if not isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
            super().handle_error(request, client_address)


def serve_silent(port, lifetime):
    """Accepts connections and never answers (nor reads)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    print("port %d" % sock.getsockname()[1], flush=True)
    held = []
    sock.settimeout(0.2)
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline:
        try:
            conn, _ = sock.accept()
            held.append(conn)
        except socket.timeout:
            pass
    os._exit(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lifetime", type=float, default=120.0, help="stop after this many seconds")
    ap.add_argument("--silent", action="store_true", help="accept connections, never answer")
    ap.add_argument("--mode", default="", help="rxnav=MODE,openfda=MODE (%s)" % ", ".join(MODES))
    ap.add_argument("--slow-seconds", type=float, default=30.0)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()

    if args.silent:
        serve_silent(args.port, args.lifetime)
        return
    modes = {"rxnav": "ok", "openfda": "ok"}
    for part in filter(None, args.mode.split(",")):
        upstream, _, mode = part.partition("=")
        if upstream not in modes or mode not in MODES:
            ap.error("bad --mode %r" % part)
        modes[upstream] = mode
    Handler.state = State(modes, args.slow_seconds)
    server = Server(("127.0.0.1", args.port), Handler)
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Timer(args.lifetime, lambda: os._exit(0)).start()
    print("port %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
