"""test_api.py — every endpoint and every error status of the HTTP API, through nginx.

One stack for the module (scripts/serve on a free port, temporary database), started with a
copy of corpus/scripts plus one sealed trial (no recording) and the recordings of corpus/audio
beside it, one of them stale (its trial's text edited after rendering). Exact bodies and
messages are the contract (docs/http-api.md).

With SCRIBE_HTTP_STACK=cluster the same tests run against a one-machine cluster instead
(tests/cluster/cluster.py ClusterStack: three store voters, two graders, one nginx edge; run by
tests/cluster/test_http_suite.py): the record is read on the store, written with `scribe-store
sql`, and FastCGI goes to the graders' TCP addresses.
"""

import contextlib
import gzip
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sqlite3
import tempfile
import time
import unittest
import urllib.parse
import xml.etree.ElementTree as ET

from harness import BUILD_DIR, cluster_mode, leftover_processes, make_stack, REPO, Stack, parse_cgi

TRIAL = "03-depression-suicidal-ideation"
SEALED = "99-sealed-depression"
STALE = "02-type2-diabetes-grief"  # its encounter text gains a line in the test corpus
OGG_OPUS = "audio/ogg; codecs=opus"
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
JSON = {"Content-Type": "application/json"}
ALLOWED = "vendor may contain only ASCII letters, digits, spaces and . _ - + ( ); "


def error(code, message):
    return {"error": {"code": code, "message": message}}


def edge_fresh(test, fetch, ready, within):
    """Polls fetch() every 10 ms until ready(reply); returns (reply, stale): stale is the seconds
    from the call to the sending of the last request whose answer was not ready (None when the
    first was). "Visible within 1 s" means no request sent more than 1 s after a commit is
    answered with what was there before it, however long the answer then takes to make (longer
    under the sanitizers). Fails the test when `within` seconds pass first."""
    start = time.monotonic()
    stale = None
    while True:
        sent = time.monotonic() - start
        reply = fetch()
        waited = time.monotonic() - start
        if ready(reply):
            return reply, stale
        stale = sent
        if waited > within:
            test.fail(f"not fresh after {waited:.3f} s: {reply.status} {reply.body[:200]!r}")
        time.sleep(0.01)


CLUSTER = False  # set by setUpModule: SCRIBE_HTTP_STACK=cluster


def reference_note(trial):
    with open(os.path.join(REPO, "tests", "fixtures", "notes", trial, "reference.txt"), encoding="utf-8") as f:
        return f.read()


def shell_extension(testcase):
    """The extension the plain sqlite3 shell can load: this build's, or the release build's when
    this one is sanitized (its runtime lives in instrumented executables only)."""
    with open(os.path.join(BUILD_DIR, "CMakeCache.txt"), encoding="utf-8") as f:
        sanitized = "SCRIBE_SANITIZE:BOOL=ON" in f.read()
    if not sanitized:
        return os.path.join(BUILD_DIR, "scribe")
    release = os.path.join(REPO, "build", "scribe")
    if not os.path.exists(release + ".so"):
        testcase.skipTest("a sanitized build and no release build of the extension for the sqlite3 shell")
    return release


def corpus_trial_count():
    """Trials the test corpus serves: every trial file of corpus/scripts, plus the sealed copy."""
    return len([n for n in os.listdir(os.path.join(REPO, "corpus", "scripts")) if n.endswith(".yaml")]) + 1


def public_trials():
    return sorted(c["id"] for c in stack.request("GET", "/api/scripts").json() if not c["sealed"])


def assert_stored_answer(testcase, stored, submitted):
    """GET /api/submissions/:id is the submit answer plus whether its grade is current and every
    grade the note has had (one, right after submitting)."""
    grades = stored.pop("grades")
    testcase.assertIs(stored.pop("current"), True)
    testcase.assertEqual(stored, submitted)
    testcase.assertEqual(len(grades), 1)
    testcase.assertEqual(set(grades[0]), {"grader_version", "methodology_version", "corpus_hash", "score_total",
                                          "unsafe", "graded_at"})
    testcase.assertEqual((grades[0]["grader_version"], grades[0]["corpus_hash"], grades[0]["score_total"],
                          grades[0]["unsafe"], grades[0]["graded_at"]),
                         (submitted["grader_version"], submitted["corpus_hash"], submitted["score_total"],
                          submitted["unsafe"], submitted["created_at"]))
def recordings():
    """{trial id: manifest entry} of corpus/audio/manifest.json."""
    with open(os.path.join(REPO, "corpus", "audio", "manifest.json"), encoding="utf-8") as f:
        return {r["trial_id"]: r for r in json.load(f)["recordings"]}


def setUpModule():
    global stack, corpus_root, corpus_dir, CLUSTER
    CLUSTER = cluster_mode()
    corpus_root = tempfile.mkdtemp(prefix="scribe-corpus-")
    corpus_dir = os.path.join(corpus_root, "scripts")
    os.mkdir(corpus_dir)
    src = os.path.join(REPO, "corpus", "scripts")
    for name in os.listdir(src):
        if os.path.isdir(os.path.join(src, name)):  # the files trials reference (FHIR bundles, write cases)
            shutil.copytree(os.path.join(src, name), os.path.join(corpus_dir, name))
        else:
            shutil.copy(os.path.join(src, name), corpus_dir)
    # The recordings beside the trials (<corpus>/../audio), linked rather than copied.
    audio = os.path.join(corpus_root, "audio")
    os.mkdir(audio)
    for name in os.listdir(os.path.join(REPO, "corpus", "audio")):
        os.symlink(os.path.join(REPO, "corpus", "audio", name), os.path.join(audio, name))
    with open(os.path.join(corpus_dir, STALE + ".yaml"), encoding="utf-8") as f:
        edited = f.read().replace("encounter_text: |\n", "encounter_text: |\n  Doctor: Good morning.\n", 1)
    with open(os.path.join(corpus_dir, STALE + ".yaml"), "w", encoding="utf-8") as f:
        f.write(edited)
    with open(os.path.join(src, TRIAL + ".yaml"), encoding="utf-8") as f:
        sealed = f.read().replace(f"id: {TRIAL}\n", f"id: {SEALED}\n", 1)
    with open(os.path.join(corpus_dir, SEALED + ".yaml"), "w", encoding="utf-8") as f:
        f.write(sealed.rstrip("\n") + "\nsealed: true\n")
    try:
        stack = make_stack(corpus=corpus_dir, workers=2)
    except BaseException:
        shutil.rmtree(corpus_root, ignore_errors=True)
        raise


def tearDownModule():
    try:
        stack.stop()
    finally:
        stack.cleanup()
        shutil.rmtree(corpus_root, ignore_errors=True)
    left = leftover_processes()
    if left:
        raise AssertionError(f"processes left behind by the suite: {left}")


class Health(unittest.TestCase):
    def test_health(self):
        r = stack.request("GET", "/health")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["content-type"], "application/json")
        body = r.json()
        # docs/http-api.md, /health: in cluster mode (--store) the body also has "store".
        self.assertEqual(list(body), ["ok", "grader_version", "schema_version", "trials", "corpus_hash", "storage"]
                         + (["store"] if CLUSTER else []))
        self.assertIs(body["ok"], True)
        self.assertEqual(body["storage"], {"ok": True})
        if CLUSTER:
            self.assertEqual(body["store"], {"ok": True})
        self.assertEqual(r.headers["cache-control"], "no-cache")
        self.assertEqual(body["trials"], corpus_trial_count())
        self.assertRegex(body["corpus_hash"], r"^[0-9a-f]{64}$")

    def test_security_headers_on_pages_and_api(self):
        for path in ("/", "/health", "/api/scripts", "/api/nope"):
            r = stack.request("GET", path)
            self.assertEqual(r.headers["content-security-policy"], PAGE_CSP, path)
            self.assertNotIn("unsafe-inline", r.headers["content-security-policy"])
            self.assertEqual(r.headers["x-content-type-options"], "nosniff", path)
            self.assertEqual(r.headers["referrer-policy"], "no-referrer", path)
            self.assertEqual(r.headers["x-frame-options"], "DENY", path)
            self.assertEqual(r.headers["server"], "nginx", path)  # no version

    def test_head(self):
        r = stack.request("HEAD", "/api/scripts")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, b"")

    def test_seed_smoke_script_holds(self):
        # The README's smoke test (tests/http/seed_smoke.sh), exactly as a user runs it. Its last
        # step reads drug_cache, which a cluster keeps in each grader's own file
        # (docs/scale-out.md, Roles: "Graders").
        db_path = stack.graders[0].db if CLUSTER else stack.db_path
        done = subprocess.run([os.path.join(REPO, "tests", "http", "seed_smoke.sh"),
                               f"http://127.0.0.1:{stack.port}", db_path],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lines = done.stdout.splitlines()
        self.assertTrue(lines[0].startswith('health: {"ok":true,'), lines[0])
        self.assertEqual(lines[1], f"scripts: {corpus_trial_count()}")
        self.assertRegex(lines[2], r'^graded: \{"total":[0-9.]+,"drug":[0-9.]+,"mental":[0-9.]+,"fab":[0-9.]+\}$')
        self.assertEqual(lines[-1], "seed-smoke: all steps hold")


class Scripts(unittest.TestCase):
    GROUND_TRUTH_WORDS = ("ground_truth", "fabrication_traps", "mental_flags", "deferred_dx", "definition", "weights")

    def test_list_has_cards_and_no_ground_truth(self):
        r = stack.request("GET", "/api/scripts")
        self.assertEqual(r.status, 200)
        cards = r.json()
        self.assertEqual(len(cards), corpus_trial_count())
        self.assertEqual([c["id"] for c in cards], sorted(c["id"] for c in cards))
        for c in cards:
            self.assertEqual(set(c), {"id", "title", "kind", "difficulty", "summary", "sealed", "version_hash", "corpus_hash",
                                      "locked_at"})
            self.assertIn(c["difficulty"], ("easy", "medium", "hard"))
        # Each card names its kind, as the trial file does (default note).
        with stack.db() as db:
            kinds = dict(db.execute("SELECT id, kind FROM trials").fetchall())
        self.assertEqual({c["id"]: c["kind"] for c in cards}, kinds)
        self.assertEqual(set(kinds.values()), {"note", "rubric", "fhir_extract", "fhir_write"})
        self.assertEqual({c["id"]: c["sealed"] for c in cards}[SEALED], True)
        # A sealed trial shows when its file was locked (its commitment); a public one has none.
        with stack.db() as db:
            locked, version = db.execute("SELECT locked_at, version_hash FROM sealed_commitments WHERE trial_id = ?",
                                         (SEALED,)).fetchone()
        by_id = {c["id"]: c for c in cards}
        self.assertEqual((by_id[SEALED]["locked_at"], by_id[SEALED]["version_hash"]), (locked, version))
        self.assertRegex(locked, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertEqual({c["locked_at"] for c in cards if not c["sealed"]}, {None})
        for word in self.GROUND_TRUTH_WORDS:
            self.assertNotIn(word.encode(), r.body)

    def test_detail_has_encounter_and_no_ground_truth(self):
        r = stack.request("GET", f"/api/scripts/{TRIAL}")
        self.assertEqual(r.status, 200)
        card = r.json()
        self.assertEqual(set(card), {"id", "title", "kind", "difficulty", "summary", "encounter_text", "instructions",
                                     "sealed", "version_hash", "corpus_hash", "locked_at", "audio", "audio_reason"})
        self.assertEqual(card["kind"], "note")
        with stack.db() as db:
            encounter, instructions = db.execute(
                "SELECT encounter_text, instructions FROM trials WHERE id = ?", (TRIAL,)).fetchone()
        self.assertEqual(card["encounter_text"], encounter)
        self.assertEqual(card["instructions"], instructions)
        for word in self.GROUND_TRUTH_WORDS:
            self.assertNotIn(word.encode(), r.body)

    def test_a_fhir_trial_serves_what_the_agent_is_given(self):
        # fhir_extract: the bundle the trial names, byte for byte; fhir_write: the subject and the
        # note excerpt of its case (docs/methodology.md §9). Neither has a recording.
        card = stack.request("GET", "/api/scripts/22-fhir-active-medications-adriana-preciado").json()
        with open(os.path.join(REPO, "corpus", "scripts", "fhir", "bundles", "adriana394_preciado125.json"), encoding="utf-8") as f:
            self.assertEqual(card["encounter_text"], f.read())
        self.assertIsNone(card["audio"])
        card = stack.request("GET", "/api/scripts/26-fhir-write-ibuprofen-two-tablets").json()
        self.assertTrue(card["encounter_text"].startswith(
            "Subject: Patient/pat-003\n\nNote excerpt:\nFor knee pain the patient currently takes two 200 mg ibuprofen "
            "tablets three times a day.\n"), card["encounter_text"][:200])
        self.assertIn("\n310965\tSCD\tIbuprofen 200 MG Oral Tablet\n", card["encounter_text"])

    def test_unknown_trial(self):
        r = stack.request("GET", "/api/scripts/99-nope")
        self.assertEqual((r.status, r.json()), (404, error("unknown_trial", "unknown trial '99-nope'")))

    def test_path_tricks(self):
        r = stack.request("GET", "/api/scripts/%00")  # refused by nginx itself
        self.assertEqual((r.status, r.json()), (400, error("bad_request", "the request is malformed")))
        for path in ("/api/scripts/x/y", "/api/scripts/%2e%2e"):
            r = stack.request("GET", path)
            self.assertEqual(r.status, 404, path)
            self.assertEqual(r.headers["content-type"], "application/json", path)
            self.assertIn(r.json()["error"]["code"], ("not_found", "unknown_trial"), path)
        # nginx resolves dot segments first: inside the site they land on the app's index.html,
        # above its root nginx refuses them; never a file outside web/
        index = stack.request("GET", "/")
        r = stack.request("GET", "/api/submissions/..%2F..%2Fetc%2Fpasswd")
        self.assertEqual((r.status, r.body), (200, index.body))
        r = stack.request("GET", "/api/scripts/..%2F..%2F..%2F..%2Fetc%2Fpasswd")
        self.assertEqual((r.status, r.json()), (400, error("bad_request", "the request is malformed")))


class Audio(unittest.TestCase):
    """GET /api/scripts/:id lists the recording; nginx serves it at /api/scripts/:id/audio."""

    def audio(self, trial=TRIAL, method="GET", headers=None):
        return stack.request(method, f"/api/scripts/{trial}/audio", headers=headers)

    def file_bytes(self, trial=TRIAL):
        with open(os.path.join(REPO, "corpus", "audio", f"{trial}.opus"), "rb") as f:
            return f.read()

    def test_detail_lists_the_recording(self):
        entry = recordings()[TRIAL]
        card = stack.request("GET", f"/api/scripts/{TRIAL}").json()
        self.assertEqual(card["audio"], {
            "url": f"/scribe-trials/api/scripts/{TRIAL}/audio",
            "sha256": entry["sha256"],
            "bytes": entry["bytes"],
            "duration_s": entry["duration_s"],
            "voices": entry["voices"],
            "content_type": OGG_OPUS,
        })
        self.assertIsNone(card["audio_reason"])
        self.assertEqual(hashlib.sha256(self.file_bytes()).hexdigest(), entry["sha256"])

    def test_trial_without_recording_says_so(self):
        card = stack.request("GET", f"/api/scripts/{SEALED}").json()
        self.assertEqual((card["audio"], card["audio_reason"]), (None, "this trial has no recording yet"))
        r = self.audio(SEALED)
        self.assertEqual((r.status, r.headers["content-type"]), (404, "application/json"))
        self.assertEqual(r.json(), error("no_recording", "no recording for this trial id: unknown trial, or a trial "
                                         "without audio (GET /scribe-trials/api/scripts/:id says which)"))

    def test_stale_recording_is_not_offered(self):
        card = stack.request("GET", f"/api/scripts/{STALE}").json()
        self.assertEqual((card["audio"], card["audio_reason"]),
                         (None, "the recording is stale: it was rendered from an earlier encounter text"))

    def test_200_with_headers(self):
        body = self.file_bytes()
        r = self.audio(headers={"Accept-Encoding": "gzip"})
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, body)
        self.assertEqual(r.headers["content-type"], OGG_OPUS)
        self.assertEqual(r.headers["content-length"], str(len(body)))
        self.assertEqual(r.headers["accept-ranges"], "bytes")
        self.assertRegex(r.headers["etag"], r'^"[0-9a-f]+-[0-9a-f]+"$')
        self.assertIn("last-modified", r.headers)
        self.assertEqual(r.headers["cache-control"], "no-cache")
        self.assertNotIn("content-encoding", r.headers)  # never compressed: ranges stay byte-exact
        self.assertEqual(r.headers["content-security-policy"], PAGE_CSP)
        self.assertEqual(r.headers["x-content-type-options"], "nosniff")
        self.assertNotIn("allow", r.headers)
        head = self.audio(method="HEAD")
        self.assertEqual((head.status, head.body, head.headers["content-length"]), (200, b"", str(len(body))))

    def test_byte_ranges_206(self):
        body = self.file_bytes()
        n = len(body)
        for spec, first, last in (("0-99", 0, 99), ("-100", n - 100, n - 1), (f"{n - 10}-", n - 10, n - 1),
                                  (f"1000-{n + 5000}", 1000, n - 1)):
            r = self.audio(headers={"Range": f"bytes={spec}"})
            self.assertEqual(r.status, 206, spec)
            self.assertEqual(r.headers["content-range"], f"bytes {first}-{last}/{n}", spec)
            self.assertEqual(r.body, body[first:last + 1], spec)
            self.assertEqual(r.headers["content-type"], OGG_OPUS)
        r = self.audio(headers={"Range": f"bytes={n}-"})
        self.assertEqual((r.status, r.headers["content-range"]), (416, f"bytes */{n}"))

    def test_304_on_if_none_match(self):
        etag = self.audio(method="HEAD").headers["etag"]
        again = self.audio(headers={"If-None-Match": etag})
        self.assertEqual((again.status, again.body, again.headers["etag"]), (304, b"", etag))
        self.assertEqual(self.audio(headers={"If-None-Match": '"other"'}).status, 200)
        # A player resuming with If-Range and the current ETag gets its range.
        r = self.audio(headers={"Range": "bytes=0-9", "If-Range": etag})
        self.assertEqual((r.status, len(r.body)), (206, 10))

    def test_only_get_and_head(self):
        for method in ("POST", "PUT", "DELETE"):
            r = self.audio(method=method)
            self.assertEqual(r.status, 405, method)
            self.assertEqual(r.headers["allow"], "GET, HEAD")
            self.assertEqual(r.headers["content-type"], "application/json")
            self.assertEqual(r.json(), error("method_not_allowed", "recordings are read with GET or HEAD"))

    def test_ids_are_validated(self):
        bad_id = error("unknown_trial", "trial ids look like NN-slug (two digits, a hyphen, lower-case words)")
        for trial in ("xx", "03-Depression-Suicidal-Ideation", "3-x", "03-", "03--x", "03-x_y", "a/b", "03-x%2e"):
            r = self.audio(trial)
            self.assertEqual((r.status, r.json()), (404, bad_id), trial)
        r = self.audio("03-x%00")  # nginx refuses a NUL in the path itself
        self.assertEqual((r.status, r.json()), (400, error("bad_request", "the request is malformed")))
        r = self.audio("99-nope")
        self.assertEqual((r.status, r.json()["error"]["code"]), (404, "no_recording"))
        # Encoded traversal never reaches a file outside the recordings: nginx decodes and
        # normalises the path before the id is matched.
        for path in (f"/api/scripts/{TRIAL}%2F..%2F..%2Fcasting.tsv/audio", "/api/scripts/..%2F..%2F..%2Fetc%2Fpasswd/audio",
                     f"/api/scripts/{TRIAL}/audio/../../../../corpus/audio/casting.tsv"):
            r = stack.request("GET", path)
            self.assertNotEqual(r.headers.get("content-type"), OGG_OPUS, path)
            self.assertNotIn(b"root:", r.body, path)
            self.assertNotIn(b"which voice speaks each role", r.body, path)  # casting.tsv's first line


class SealedCorpus(unittest.TestCase):
    """Sealed trials kept outside the repository (SCRIBE_SEALED_CORPUS): public encounter, a
    published commitment, minimal results, and a bounded number of gradings per version."""
    SEALED_ID = "97-sealed-depression-anxiety"
    DIR = os.path.join(REPO, "tests", "fixtures", "sealed-corpus", "scripts")

    @classmethod
    def setUpClass(cls):
        cls.stack = make_stack(workers=1, read_workers=1, extra_env={"SCRIBE_SEALED_CORPUS": cls.DIR})

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()
        cls.stack.cleanup()

    def submit(self, vendor, dry_run=False):
        body = {"script_id": self.SEALED_ID, "vendor": vendor, "dry_run": dry_run,
                "scribe_output": reference_note("13-depression-anxiety-follow-up")}
        return self.stack.request("POST", "/api/submit", json.dumps(body), JSON)

    def test_the_sealed_trial_is_listed_with_its_commitment_and_never_its_checklist(self):
        cards = {c["id"]: c for c in self.stack.request("GET", "/api/scripts").json()}
        card = cards[self.SEALED_ID]
        with open(os.path.join(self.DIR, self.SEALED_ID + ".yaml"), "rb") as f:
            self.assertEqual(card["version_hash"], hashlib.sha256(f.read()).hexdigest())  # anyone can check it
        self.assertIs(card["sealed"], True)
        self.assertRegex(card["locked_at"], r"^\d{4}-\d\d-\d\dT")
        detail = self.stack.request("GET", "/api/scripts/" + self.SEALED_ID)
        self.assertIn("escitalopram", detail.json()["encounter_text"])
        for secret in (b"PHQ-9 item 9 scored 0", b"caffeine-advice", b"Bupropion was discussed only"):
            self.assertNotIn(secret, detail.body)
            self.assertNotIn(secret, self.stack.request("GET", "/api/scripts").body)

    def test_results_are_minimal_and_gradings_are_bounded(self):
        dry = self.submit("Prober One", dry_run=True)
        self.assertEqual(dry.status, 200)
        self.assertEqual(sorted(dry.json()), ["corpus_hash", "critical_error_count", "critical_errors", "difficulty", "dry_run",
                                              "grader_version", "ground_truth", "kind", "methodology_version",
                                              "note_chars", "score_total", "script_id", "sealed", "terminology",
                                              "trial_title", "trial_version_hash", "unsafe", "vendor"])
        self.assertEqual((dry.json()["score_total"], dry.json()["ground_truth"]), (1.0, None))
        for _ in range(2):
            r = self.submit("Prober One")
            self.assertEqual(r.status, 201)
            self.assertNotIn("rubric", r.json())  # no checklist, items or deductions
        before = self.stack.count_submissions()
        r = self.submit("prober one")  # the same vendor, any spelling; the dry run counted
        self.assertEqual((r.status, r.json()), (429, error(
            "sealed_attempts_used", "vendor 'prober one' has graded sealed trial '97-sealed-depression-anxiety' 3 times "
            "(dry runs included), the limit for this version of the trial: any score of a sealed trial tells something "
            "about its checklist")))
        r = self.submit("Prober Two")  # a new name from the same address
        self.assertEqual((r.status, r.json()), (429, error(
            "sealed_attempts_used", "this address has graded sealed trial '97-sealed-depression-anxiety' 3 times "
            "(dry runs included), the limit for this version of the trial: any score of a sealed trial tells something "
            "about its checklist")))
        self.assertEqual(self.stack.count_submissions(), before)
        public = self.stack.submit(TRIAL, "Prober One", reference_note(TRIAL))
        self.assertEqual(public.status, 201)  # public trials have no such limit
        with self.stack.db() as db:
            rows = db.execute("SELECT vendor_key, dry_run, length(client_hash) FROM sealed_attempts ORDER BY at").fetchall()
        self.assertEqual(rows, [("prober one", 1, 64), ("prober one", 0, 64), ("prober one", 0, 64)])


class VendorClaims(unittest.TestCase):
    """A name can be claimed once; a claimed name submits only with its key (docs/http-api.md)."""

    def claim(self, vendor, method="POST"):
        return stack.request(method, "/api/vendors/" + urllib.parse.quote(vendor, safe="") + "/claim", "", JSON)

    def submit_as(self, vendor, key=None):
        headers = dict(JSON)
        if key is not None:
            headers["Authorization"] = key
        body = json.dumps({"script_id": TRIAL, "vendor": vendor, "scribe_output": reference_note(TRIAL)})
        return stack.request("POST", "/api/submit", body, headers)

    def test_claim_once_then_only_the_key_submits(self):
        self.assertEqual(self.submit_as("Careful Scribe").status, 201)  # unclaimed: as the seed API
        r = self.claim("Careful Scribe")
        self.assertEqual(r.status, 201)
        body = r.json()
        self.assertEqual(list(body), ["vendor", "key", "message"])
        self.assertEqual(body["vendor"], "Careful Scribe")  # the name as first written
        self.assertRegex(body["key"], r"^st_[0-9a-f]{64}$")
        key = body["key"]
        with stack.db() as db:
            stored = db.execute("SELECT key_sha256 FROM vendors WHERE name = 'Careful Scribe'").fetchone()[0]
        self.assertEqual(stored, hashlib.sha256(key.encode()).hexdigest())  # only the hash is kept
        # Any spelling of the name is the same vendor: claimed.
        for spelling in ("Careful Scribe", "careful scribe", "CAREFUL SCRIBE"):
            r = self.claim(spelling)
            self.assertEqual((r.status, r.json()), (409, error(
                "vendor_claimed", f"vendor '{spelling}' is already claimed; its key was shown once, to whoever claimed it")))
            before = stack.count_submissions()
            r = self.submit_as(spelling)
            self.assertEqual((r.status, r.json()), (403, error(
                "vendor_claimed", f"vendor '{spelling}' is claimed: send its key as the header Authorization: Bearer <key>")))
            for wrong in ("Bearer " + "st_" + "0" * 64, "Bearer", "Basic " + key, key):
                r = self.submit_as(spelling, wrong)
                expected = (error("wrong_key", f"the key does not belong to vendor '{spelling}'") if wrong.startswith("Bearer st_")
                            else error("vendor_claimed", f"vendor '{spelling}' is claimed: send its key as the header Authorization: Bearer <key>"))
                self.assertEqual((r.status, r.json()), (403, expected), wrong)
            self.assertEqual(stack.count_submissions(), before)  # nothing refused was stored
            self.assertEqual(self.submit_as(spelling, "Bearer " + key).status, 201)

    def test_claim_errors(self):
        r = self.claim("<svg onload=alert(1)>")
        self.assertEqual(r.status, 422)
        self.assertEqual(r.json()["error"]["code"], "invalid_field")
        r = self.claim("Some Vendor", method="GET")
        self.assertEqual((r.status, r.json()), (405, error("method_not_allowed", "GET is not allowed here; use POST")))
        self.assertEqual(r.headers["allow"], "POST")


class Submit(unittest.TestCase):
    def test_submit_persists_and_returns_the_result(self):
        note = "Patient on sertaline 50mg daily. Reports insomnia. No SI."
        r = stack.submit(TRIAL, "Smoke Vendor", note)
        self.assertEqual(r.status, 201)
        body = r.json()
        self.assertRegex(body["id"], r"^[0-9a-f]{16}$")
        self.assertEqual(body["vendor"], "Smoke Vendor")
        self.assertEqual(body["script_id"], TRIAL)
        self.assertEqual(r.headers["location"], f"/scribe-trials/api/submissions/{body['id']}")
        for k in ("score_total", "score_drug", "score_mental", "score_fabrication"):
            self.assertIsInstance(body[k], (int, float), k)
        self.assertIn("ground_truth", body)
        health = stack.request("GET", "/health").json()
        self.assertEqual(body["corpus_hash"], health["corpus_hash"])
        self.assertEqual(body["grader_version"], health["grader_version"])
        with stack.db() as db:
            row = db.execute("SELECT script_id, vendor, corpus_hash, grader_version, score_total, unsafe, "
                             "scribe_output, result FROM submissions WHERE id = ?", (body["id"],)).fetchone()
        self.assertEqual(row[:4], (TRIAL, "Smoke Vendor", health["corpus_hash"], health["grader_version"]))
        self.assertEqual(row[4], body["score_total"])
        self.assertEqual(row[5], int(body["unsafe"]))
        self.assertEqual(row[6], note)
        self.assertEqual(json.loads(row[7]), body)
        again = stack.request("GET", f"/api/submissions/{body['id']}")
        self.assertEqual(again.status, 200)
        assert_stored_answer(self, again.json(), body)

    def test_sealed_trial_never_reveals_ground_truth(self):
        r = stack.submit(SEALED, "Sealed Vendor", reference_note(TRIAL))
        self.assertEqual(r.status, 201)
        body = r.json()
        self.assertIs(body["sealed"], True)
        self.assertIsNone(body["ground_truth"])
        # Only the total, the Unsafe label and the number of critical errors (plus versions and
        # the submission's own facts): no category, count, item or evidence.
        self.assertEqual(sorted(body), ["corpus_hash", "created_at", "critical_error_count", "critical_errors",
                                        "difficulty", "grader_version", "ground_truth", "id", "kind",
                                        "methodology_version", "note_chars", "score_total", "script_id", "sealed",
                                        "terminology", "trial_title", "trial_version_hash", "unsafe", "vendor"])
        with stack.db() as c:
            row = c.execute("SELECT kind, score_drug, score_mental, score_fabrication FROM submissions WHERE id = ?",
                            (body["id"],)).fetchone()
        # The database keeps the full grade (clinician review and re-grading need it); only the
        # answers are minimal.
        self.assertEqual(row, ("note", 1.0, 1.0, 1.0))
        stored = stack.request("GET", f"/api/submissions/{body['id']}")
        assert_stored_answer(self, stored.json(), body)

    def test_charset_and_case(self):
        for content_type in ("application/json; charset=utf-8", "Application/JSON"):
            body = json.dumps({"script_id": TRIAL, "vendor": "Edge Vendor", "scribe_output": "No SI."})
            r = stack.request("POST", "/api/submit", body, {"Content-Type": content_type})
            self.assertEqual(r.status, 201, content_type)
            self.assertEqual(r.json()["note_chars"], 6)

    def stored_count(self):
        with stack.db() as db:
            return db.execute("SELECT count(*) FROM submissions").fetchone()[0]

    def test_blank_notes_are_refused_and_never_stored(self):
        before = self.stored_count()
        for blank in ("", " ", "\n\t \r\n"):
            r = stack.submit(TRIAL, "Blank Vendor", blank)
            self.assertEqual((r.status, r.json()), (422, error(
                "invalid_field", "scribe_output must not be empty or only whitespace")), repr(blank))
        self.assertEqual(self.stored_count(), before)

    def submit_with(self, **extra):
        body = {"script_id": TRIAL, "vendor": "Option Vendor", "scribe_output": reference_note(TRIAL), **extra}
        return stack.request("POST", "/api/submit", json.dumps(body), JSON)

    def test_dry_run_grades_without_storing(self):
        before = self.stored_count()
        r = self.submit_with(dry_run=True)
        self.assertEqual(r.status, 200)
        body = r.json()
        self.assertIs(body["dry_run"], True)
        self.assertNotIn("id", body)
        self.assertNotIn("location", r.headers)
        self.assertEqual((body["vendor"], body["script_id"], body["score_total"], body["unsafe"]),
                         ("Option Vendor", TRIAL, 1.0, False))
        stored = self.submit_with(dry_run=False)
        self.assertEqual(stored.status, 201)
        self.assertEqual(self.stored_count(), before + 1)  # the dry run stored nothing
        without = {k: v for k, v in stored.json().items() if k not in ("id", "created_at")}
        self.assertEqual({k: v for k, v in body.items() if k != "dry_run"}, without)
        for bad in ("yes", 1, []):
            r = self.submit_with(dry_run=bad)
            self.assertEqual((r.status, r.json()), (422, error("invalid_field", "dry_run must be true or false")))

    def test_corpus_hash_must_be_the_loaded_corpus(self):
        loaded = stack.request("GET", "/health").json()["corpus_hash"]
        before = self.stored_count()
        r = self.submit_with(corpus_hash="0" * 64)
        self.assertEqual((r.status, r.json()), (409, error(
            "corpus_mismatch", f"corpus_hash {'0' * 64} is not the loaded corpus {loaded}; nothing was stored")))
        self.assertEqual(self.stored_count(), before)
        for bad in ("abc", loaded.upper(), 7):
            r = self.submit_with(corpus_hash=bad)
            message = ("corpus_hash must be a string" if bad == 7
                       else "corpus_hash must be 64 lower-case hexadecimal characters (a SHA-256)")
            self.assertEqual((r.status, r.json()), (422, error("invalid_field", message)), bad)
        self.assertEqual(self.submit_with(corpus_hash=loaded).status, 201)

    def test_scribe_output_length_limit(self):
        words = ("No chest pain today. " * 10000)
        at_limit = words[:200000]
        r = stack.submit(TRIAL, "Long Vendor", at_limit)
        self.assertEqual(r.status, 201)
        r = stack.submit(TRIAL, "Long Vendor", at_limit + "x")
        self.assertEqual((r.status, r.json()), (422, error(
            "invalid_field", "scribe_output must be at most 200000 characters (got 200001)")))
        # characters, not bytes: 200000 characters in 260000 bytes are fine
        r = stack.submit(TRIAL, "Long Vendor", "é" * 60000 + at_limit[:140000])
        self.assertEqual(r.status, 201)
        self.assertEqual(r.json()["note_chars"], 200000)

    def test_unknown_submission(self):
        for sid in ("0000000000000000", "not-an-id", "ABCDEF0123456789", "<script>"):
            r = stack.request("GET", "/api/submissions/" + urllib.parse.quote(sid, safe=""))
            self.assertEqual((r.status, r.json()), (404, error("unknown_submission", f"unknown submission '{sid}'")))


class Errors(unittest.TestCase):
    """Every refusal has an exact body and writes nothing."""

    def setUp(self):
        self.before = stack.count_submissions()

    def tearDown(self):
        self.assertEqual(stack.count_submissions(), self.before, "a failed request wrote a row")

    def post(self, body, headers=JSON):
        return stack.request("POST", "/api/submit", body, headers)

    def test_415_wrong_content_type(self):
        body = json.dumps({"script_id": TRIAL, "vendor": "v", "scribe_output": "x"})
        for headers in ({}, {"Content-Type": "text/plain"}, {"Content-Type": "application/x-www-form-urlencoded"},
                        {"Content-Type": "application/jsonx"}):
            r = self.post(body, headers)
            self.assertEqual((r.status, r.json()), (415, error(
                "unsupported_media_type", "Content-Type must be application/json")), headers)

    def test_400_malformed_json(self):
        for body in (b'{"script_id":', b"", b"nope", b'{"a":1}{', b'{"vendor":"\xff\xfe"}'):
            r = self.post(body)
            self.assertEqual((r.status, r.json()), (400, error("malformed_json", "request body is not valid JSON")),
                             body)

    def test_422_fields(self):
        ok = {"script_id": TRIAL, "vendor": "Vendor", "scribe_output": "x"}
        cases = [
            ([], "invalid_body", "request body must be a JSON object"),
            ("just a string", "invalid_body", "request body must be a JSON object"),
            ({k: v for k, v in ok.items() if k != "script_id"}, "missing_field", "script_id is required"),
            ({**ok, "script_id": 3}, "invalid_field", "script_id must be a string"),
            ({**ok, "script_id": None}, "invalid_field", "script_id must be a string"),
            ({**ok, "script_id": ""}, "invalid_field", "script_id must not be empty"),
            ({k: v for k, v in ok.items() if k != "vendor"}, "missing_field", "vendor is required"),
            ({**ok, "vendor": None}, "invalid_field", "vendor must be a string"),
            ({**ok, "vendor": ["a"]}, "invalid_field", "vendor must be a string"),
            ({k: v for k, v in ok.items() if k != "scribe_output"}, "missing_field", "scribe_output is required"),
            ({**ok, "scribe_output": 42}, "invalid_field", "scribe_output must be a string"),
            ({**ok, "scribe_output": {"soap": "x"}}, "invalid_field", "scribe_output must be a string"),
        ]
        for body, code, message in cases:
            r = self.post(json.dumps(body))
            self.assertEqual((r.status, r.json()), (422, error(code, message)), body)

    def test_hostile_vendor_names(self):
        start = "vendor must start with an ASCII letter or digit"
        cases = [
            ("<script>alert(1)</script>", start),
            ("Acme<script>alert(1)</script>", ALLOWED + "'<' at position 5 is not allowed"),
            ("</text><script>alert(1)</script>", start),
            ("x</text><script>", ALLOWED + "'<' at position 2 is not allowed"),
            ("'; DROP TABLE submissions;--", start),
            ("a'; DROP TABLE submissions;--", ALLOWED + "''' at position 2 is not allowed"),
            ("../../etc/passwd", start),
            ("a/../../etc/passwd", ALLOWED + "'/' at position 2 is not allowed"),
            ("Ünïcode Scribe", start),
            ("Scribe Ünïcode", ALLOWED + "a non-ASCII character at position 8 is not allowed"),
            ("Scribe 😀", ALLOWED + "a non-ASCII character at position 8 is not allowed"),
            ("A" * 65, "vendor must be at most 64 characters (got 65)"),
            ("é" * 65, "vendor must be at most 64 characters (got 65)"),
            ("", "vendor must not be empty"),
            (" Acme", start),
            ("Acme ", "vendor must not end with a space"),
            ("Acme  Scribe", "vendor must not contain two spaces in a row"),
            ("Acme\tScribe", ALLOWED + "a control character at position 5 is not allowed"),
            ("Acme\nScribe", ALLOWED + "a control character at position 5 is not allowed"),
            ("Acme\u0000", ALLOWED + "a control character at position 5 is not allowed"),
            ("Acme & Co", ALLOWED + "'&' at position 6 is not allowed"),
            ('Acme "Scribe"', ALLOWED + "'\"' at position 6 is not allowed"),
            ("Acme/Scribe", ALLOWED + "'/' at position 5 is not allowed"),
            ("Acme%20Scribe", ALLOWED + "'%' at position 5 is not allowed"),
        ]
        for vendor, message in cases:
            r = stack.submit(TRIAL, vendor, "x")
            self.assertEqual((r.status, r.json()), (422, error("invalid_field", message)), repr(vendor))
        with stack.db() as db:  # the SQL one did nothing either
            self.assertEqual(db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'submissions'").fetchone(),
                             (1,))

    def test_404_unknown_trial(self):
        r = stack.submit("99-nope", "Vendor", "x")
        self.assertEqual((r.status, r.json()), (404, error("unknown_trial", "unknown trial '99-nope'")))
        r = stack.submit("'; DROP TABLE trials;--", "Vendor", "x")
        self.assertEqual((r.status, r.json()), (404, error("unknown_trial", "unknown trial ''; DROP TABLE trials;--'")))

    def test_405_with_allow(self):
        for method, path, allow in (("GET", "/api/submit", "POST"), ("PUT", "/api/submit", "POST"),
                                    ("POST", "/api/scripts", "GET, HEAD"), ("DELETE", "/api/leaderboard", "GET, HEAD"),
                                    ("POST", "/health", "GET, HEAD"), ("PATCH", f"/api/scripts/{TRIAL}", "GET, HEAD"),
                                    ("POST", "/api/badge/x.svg", "GET, HEAD")):
            r = stack.request(method, path, b"{}" if method != "GET" else None, JSON)
            self.assertEqual(r.status, 405, (method, path))
            self.assertEqual(r.headers["allow"], allow)
            self.assertEqual(r.json(), error("method_not_allowed", f"{method} is not allowed here; use {allow}"))

    def test_404_routes(self):
        r = stack.request("GET", "/api/nope")
        self.assertEqual((r.status, r.json()), (404, error("not_found", "no such route: /scribe-trials/api/nope")))
        r = stack.request("GET", "/elsewhere", prefix="")
        self.assertEqual((r.status, r.json()), (404, error(
            "not_found", "no such route; the service lives under /scribe-trials/")))

    def test_413_from_nginx(self):
        body = json.dumps({"script_id": TRIAL, "vendor": "Big", "scribe_output": "a" * 300000})
        r = self.post(body)
        self.assertEqual((r.status, r.json()), (413, error(
            "body_too_large", "request body is larger than 256 KB (262144 bytes)")))
        self.assertEqual(r.headers["content-type"], "application/json")


def raw_http(request_bytes, timeout=10):
    """Sends bytes as they are (requests http.client refuses to build); returns (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", stack.port), timeout=timeout) as c:
        c.sendall(request_bytes)
        data = b""
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body


class NginxErrors(unittest.TestCase):
    """Errors nginx produces itself are the API's JSON, uncached; redirects never echo Host."""

    def assert_json_error(self, status, headers, body, expected_status, code, message):
        self.assertEqual(status, expected_status, body)
        self.assertEqual(headers["content-type"], "application/json")
        self.assertEqual(headers["cache-control"], "no-cache")
        self.assertEqual(json.loads(body), error(code, message))

    def test_each_status(self):
        close = b"Host: x\r\nConnection: close\r\n"
        cases = [
            (b"GET /scribe-trials/css/ HTTP/1.1\r\n" + close + b"\r\n",
             403, "forbidden", "this path cannot be listed"),
            (b"POST /scribe-trials/index.html HTTP/1.1\r\nContent-Length: 0\r\n" + close + b"\r\n",
             405, "method_not_allowed", "this method is not allowed here"),
            (b"GET /scribe-trials/" + b"a" * 10000 + b" HTTP/1.1\r\n" + close + b"\r\n",
             414, "uri_too_long", "the request URI is too long"),
            (b"GET /scribe-trials/ HTTP/1.1\r\nX-Big: " + b"a" * 10000 + b"\r\n" + close + b"\r\n",
             400, "header_too_large", "a request header is too large"),  # nginx's 494
            (b"POST /scribe-trials/api/submit HTTP/1.1\r\nTransfer-Encoding: gzip\r\n" + close + b"\r\n",
             501, "not_implemented", "this request cannot be handled (unsupported method or transfer encoding)"),
            (b"GET /scribe-trials/api/scripts/%00 HTTP/1.1\r\n" + close + b"\r\n",
             400, "bad_request", "the request is malformed"),
            (b"NOT A REQUEST\r\n\r\n", 400, "bad_request", "the request is malformed"),
        ]
        for request, status, code, message in cases:
            with self.subTest(code=code, status=status):
                self.assert_json_error(*raw_http(request), status, code, message)

    def test_413_is_uncached_json(self):
        body = json.dumps({"script_id": TRIAL, "vendor": "Big", "scribe_output": "a" * 300000})
        r = stack.request("POST", "/api/submit", body, JSON)
        self.assert_json_error(r.status, r.headers, r.body, 413, "body_too_large",
                               "request body is larger than 256 KB (262144 bytes)")

    def test_program_errors_are_uncached(self):
        for method, path, body in (("GET", "/api/nope", None), ("GET", "/api/scripts/99-nope", None),
                                   ("DELETE", "/api/leaderboard", None), ("POST", "/api/submit", b"nope"),
                                   ("POST", "/api/submit", b"[]"), ("GET", "/api/submissions/x", None),
                                   ("GET", "/elsewhere", None)):
            prefix = "" if path == "/elsewhere" else "/scribe-trials"
            r = stack.request(method, path, body, JSON if body else None, prefix=prefix)
            self.assertGreaterEqual(r.status, 400, path)
            self.assertEqual(r.headers["content-type"], "application/json", path)
            self.assertEqual(r.headers["cache-control"], "no-cache", path)
            self.assertIn("error", r.json(), path)

    def test_redirects_never_reflect_the_host_header(self):
        for path, status, location in ((b"/", 302, "/scribe-trials/"), (b"/scribe-trials", 301, "/scribe-trials/"),
                                       (b"/scribe-trials/css", 301, "/scribe-trials/css/")):
            for host in (b"evil.example", b"evil.example:666", None):
                request = b"GET " + path + b" HTTP/1.1\r\n" + (b"Host: " + host + b"\r\n" if host else b"") + \
                          b"Connection: close\r\n\r\n"
                if host is None:
                    request = b"GET " + path + b" HTTP/1.0\r\n\r\n"
                got, headers, _ = raw_http(request)
                self.assertEqual((got, headers["location"]), (status, location), (path, host))


class FastCgiDirect(unittest.TestCase):
    """The program enforces its limits itself, without nginx in front."""

    def setUp(self):
        self.before = stack.count_submissions()

    def tearDown(self):
        self.assertEqual(stack.count_submissions(), self.before)

    def call(self, extra, stdin=b""):
        params = {"REQUEST_METHOD": "POST", "DOCUMENT_URI": "/scribe-trials/api/submit",
                  "CONTENT_TYPE": "application/json"}
        params.update(extra)
        params = {k: v for k, v in params.items() if v is not None}
        stdout, _ = stack.fastcgi(params, stdin)
        lines, body = parse_cgi(stdout)
        self.assertTrue(lines[0].startswith("Status: "), lines)
        self.assertTrue(lines[1].startswith("Content-Type: "), lines)
        return int(lines[0].split()[1]), json.loads(body)

    def test_413_without_reading(self):
        self.assertEqual(self.call({"CONTENT_LENGTH": "300000"}), (413, error(
            "body_too_large", "request body is larger than 256 KB (262144 bytes)")))
        self.assertEqual(self.call({"CONTENT_LENGTH": "262145"})[0], 413)

    def test_411_without_a_valid_length(self):
        expected = (411, error("length_required", "Content-Length is required"))
        for length in (None, "", "-1", "12abc", " 12", "99999999999999999999"):
            self.assertEqual(self.call({"CONTENT_LENGTH": length}, b"{}"), expected, length)

    def test_400_short_body(self):
        self.assertEqual(self.call({"CONTENT_LENGTH": "100"}, b'{"script_id":'), (400, error(
            "incomplete_body", "request body ended before Content-Length bytes")))

    def test_400_without_document_uri(self):
        self.assertEqual(self.call({"DOCUMENT_URI": None, "CONTENT_LENGTH": "2"}, b"{}"),
                         (400, error("bad_request", "DOCUMENT_URI is missing")))

    def test_submit_directly(self):
        body = json.dumps({"script_id": TRIAL, "vendor": "Direct", "scribe_output": "x"}).encode()
        status, result = self.call({"CONTENT_LENGTH": str(len(body))}, body)
        self.assertEqual(status, 201)
        self.before += 1

    def test_no_work_after_the_deadline(self):
        # SCRIBE_REQUEST_START is nginx's $msec; the stack's deadline is the default 30 s.
        body = json.dumps({"script_id": TRIAL, "vendor": "Late", "scribe_output": "Sertraline 50 mg daily."}).encode()
        stale = f"{time.time() - 31:.3f}"
        self.assertEqual(self.call({"CONTENT_LENGTH": str(len(body)), "SCRIBE_REQUEST_START": stale}, body), (503, error(
            "deadline_passed", "the request is older than the 30 s deadline; the submission was not stored")))
        self.assertIn("submission abandoned: the request is older than the 30 s deadline", stack.read_log())
        # a fresh start, or one nginx did not send in its format, is served
        for start in (f"{time.time():.3f}", "yesterday", "1735689600", "1735689600.1234", ""):
            status, _ = self.call({"CONTENT_LENGTH": str(len(body)), "SCRIBE_REQUEST_START": start}, body)
            self.assertEqual(status, 201, start)
            self.before += 1


def svg_ok(testcase, reply, message, label="scribe-trials"):
    testcase.assertEqual(reply.headers["content-type"], "image/svg+xml")
    testcase.assertEqual(reply.headers["cache-control"], "no-cache")
    testcase.assertEqual(reply.headers["etag"], '"' + hashlib.sha256(reply.body).hexdigest() + '"')
    svg = ET.fromstring(reply.body)
    testcase.assertEqual(svg.get("height"), "20")
    testcase.assertEqual(svg.get("role"), "img")
    testcase.assertEqual(svg.get("aria-label"), f"{label}: {message}")
    testcase.assertEqual(svg.find("{http://www.w3.org/2000/svg}title").text, f"{label}: {message}")


class BadgesAndLeaderboard(unittest.TestCase):
    # Passing needs a complete suite: every current public trial run (docs/methodology.md §5).
    @classmethod
    def setUpClass(cls):
        cls.suite = public_trials()
        for t in cls.suite:
            r = stack.submit(t, "Passing Scribe (v2.1)", reference_note(t))
            assert r.status == 201 and r.json()["score_total"] == 1.0, (t, r.status, r.body[:200])
        for _ in range(2):
            assert stack.submit(TRIAL, "Two Runs", "Sertraline 50 mg daily.").status == 201
        for t in cls.suite:
            assert stack.submit(t, "Failing Scribe", "Nothing of note.").status == 201

    def badge(self, vendor, headers=None):
        return stack.request("GET", "/api/badge/" + urllib.parse.quote(vendor, safe="") + ".svg", headers=headers)

    def test_passing_badge_200_and_304(self):
        r = self.badge("Passing Scribe (v2.1)")
        self.assertEqual(r.status, 200)
        svg_ok(self, r, "100% pass", label=self.label())
        self.assertIn(b'fill="#4c1"', r.body)  # brightgreen
        etag = r.headers["etag"]
        for inm in (etag, "W/" + etag, f'"other", {etag}', "*"):
            again = self.badge("Passing Scribe (v2.1)", {"If-None-Match": inm})
            self.assertEqual(again.status, 304, inm)
            self.assertEqual(again.body, b"")
            self.assertEqual(again.headers["etag"], etag)
        self.assertEqual(self.badge("Passing Scribe (v2.1)", {"If-None-Match": '"stale"'}).status, 200)

    def label(self):
        return "scribe-trials " + stack.request("GET", "/health").json()["grader_version"]

    def test_a_vendor_name_is_found_whatever_its_case_and_width(self):
        # Names are keyed by their NFKC case fold: the badge of "PASSING SCRIBE (V2.1)" is the
        # vendor's, not a stranger's.
        for spelling in ("PASSING SCRIBE (V2.1)", "passing scribe (v2.1)", "Ｐassing Scribe (v2.1)"):
            r = self.badge(spelling)
            self.assertEqual(r.status, 200, spelling)
            svg_ok(self, r, "100% pass", label=self.label())

    def test_badges_stay_embeddable_and_uncompressed(self):
        r = self.badge("Passing Scribe (v2.1)", {"Accept-Encoding": "gzip"})
        self.assertNotIn("x-frame-options", r.headers)
        self.assertNotIn("frame-ancestors", r.headers["content-security-policy"])
        self.assertEqual(r.headers["content-security-policy"], "default-src 'none'")
        self.assertEqual(r.headers["cross-origin-resource-policy"], "cross-origin")
        self.assertEqual(r.headers["x-content-type-options"], "nosniff")
        self.assertNotIn("content-encoding", r.headers)  # gzip would weaken the strong ETag
        self.assertFalse(r.headers["etag"].startswith("W/"))

    def test_not_passing_badges_are_404_svg(self):
        n = len(self.suite)
        for vendor, label, message in (("Two Runs", self.label(), f"1 of {n} trials"),
                                       ("Failing Scribe", self.label(), "unsafe: review pending"),
                                       ("Nobody", "scribe-trials", "no passing result")):
            r = self.badge(vendor)
            self.assertEqual(r.status, 404, vendor)
            svg_ok(self, r, message, label=label)
            etag = r.headers["etag"]
            self.assertEqual(self.badge(vendor, {"If-None-Match": etag}).status, 404)  # 304 only for a badge

    def test_leaderboard(self):
        r = stack.request("GET", "/api/leaderboard")
        self.assertEqual(r.status, 200)
        board = r.json()
        keys = {"vendor", "runs", "trials", "suite_trials", "avg_score", "stddev", "ci95_low", "ci95_high", "unsafe",
                "unsafe_pending", "last_submitted_at", "passing"}
        for row in board:
            self.assertEqual(set(row), keys)
            self.assertIsInstance(row["passing"], bool)
            self.assertGreaterEqual(row["runs"], 3)
        by_vendor = {row["vendor"]: row for row in board}
        self.assertNotIn("Two Runs", by_vendor)
        n = len(self.suite)
        top = by_vendor["Passing Scribe (v2.1)"]
        self.assertEqual({row["suite_trials"] for row in board}, {n})
        self.assertEqual((top["runs"], top["trials"], top["avg_score"], top["stddev"], top["ci95_low"],
                          top["ci95_high"], top["unsafe"], top["passing"]), (n, n, 1.0, 0.0, 1.0, 1.0, 0, True))
        self.assertRegex(top["last_submitted_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        failing = by_vendor["Failing Scribe"]
        # "Nothing of note." misses every trial's critical facts: unsafe, pending clinician review.
        self.assertEqual((failing["runs"], failing["trials"], failing["unsafe"], failing["passing"]), (n, n, 0, False))
        self.assertGreater(failing["unsafe_pending"], 0)
        # Vendors without a confirmed unsafe note first, then by suite score (a pending critical
        # error blocks the badge, not the rank).
        order = [(row["unsafe"] > 0, -row["avg_score"]) for row in board]
        self.assertEqual(order, sorted(order))

    def test_answers_follow_every_commit(self):
        # Workers keep listings while PRAGMA data_version is unchanged; any commit drops them. Read
        # from the workers themselves: the edge cache in front of them (EdgeCache below) may keep
        # an answer until the end of its second.
        def state():
            board = {row["vendor"] for row in stack.read_worker("/api/leaderboard").json()}
            badge = stack.read_worker("/api/badge/" + urllib.parse.quote("Fresh Vendor", safe="") + ".svg")
            return "Fresh Vendor" in board, ET.fromstring(badge.body).get("aria-label")
        for _ in range(4):  # warm every worker's cache
            self.assertEqual(state(), (False, "scribe-trials: no passing result"))
        n = len(self.suite)
        for done, t in enumerate(self.suite, 1):
            self.assertEqual(stack.submit(t, "Fresh Vendor", reference_note(t)).status, 201)
            message = "100% pass" if done == n else f"{done} of {n} trials"
            expected = (done >= 3, f"{self.label()}: {message}")
            for _ in range(4):
                self.assertEqual(state(), expected)
            # Each submit refreshed its vendor's standing in its own commit: nothing is left dirty,
            # and the leaderboard read the table (sql/schema.sql, migrate 6).
            with contextlib.closing(stack.db()) as db:
                self.assertEqual(db.execute("SELECT count(*) FROM standings_dirty").fetchone(), (0,))
                self.assertEqual(db.execute("SELECT runs, trials FROM standings WHERE vendor_key = 'fresh vendor'").fetchall(),
                                 [(done, done)])

    def vendor(self, name, suffix="", query=""):
        return stack.request("GET", "/api/vendors/" + urllib.parse.quote(name, safe="") + suffix + query)

    def test_vendor_runs_and_trials(self):
        n = len(self.suite)
        r = self.vendor("passing scribe (v2.1)")  # any spelling of the name
        self.assertEqual(r.status, 200)
        body = r.json()
        self.assertEqual((body["vendor"], body["claimed"], body["next"]), ("Passing Scribe (v2.1)", False, None))
        self.assertEqual(len(body["runs"]), n)
        self.assertEqual(sorted(run["script_id"] for run in body["runs"]), self.suite)
        for run in body["runs"]:
            self.assertEqual(set(run), {"id", "script_id", "kind", "created_at", "score_total", "unsafe", "unsafe_status",
                                        "counted", "blank", "grader_version", "methodology_version", "corpus_hash"})
            self.assertEqual((run["score_total"], run["unsafe"], run["unsafe_status"], run["counted"], run["blank"]),
                             (1.0, False, "safe", True, False))
        created = [run["created_at"] for run in body["runs"]]
        self.assertEqual(created, sorted(created, reverse=True))  # newest first
        trials = self.vendor("Passing Scribe (v2.1)", "/trials").json()
        self.assertEqual(trials["suite"], {"suite_trials": n, "trials_run": n, "runs": n, "suite_score": 1.0,
                                           "ci95_low": 1.0, "ci95_high": 1.0, "unsafe": 0, "unsafe_pending": 0,
                                           "passing": True})
        self.assertEqual([t["script_id"] for t in trials["trials"]], self.suite)
        self.assertEqual({(t["runs"], t["mean"], t["min"], t["max"]) for t in trials["trials"]}, {(1, 1.0, 1.0, 1.0)})
        two = self.vendor("Two Runs", "/trials").json()
        self.assertEqual(two["suite"]["passing"], None)  # under 3 runs: not on the leaderboard yet
        self.assertEqual([(t["script_id"], t["runs"]) for t in two["trials"] if t["runs"]], [(TRIAL, 1)])  # identical notes count once
        self.assertEqual(len(two["trials"]), n)

    def test_vendor_pages(self):
        ids = [stack.submit(TRIAL, "Many Runs", "Sertraline 50 mg daily.").json()["id"] for _ in range(53)]
        first = self.vendor("Many Runs").json()
        self.assertEqual(len(first["runs"]), 50)
        self.assertEqual(first["next"], first["runs"][-1]["id"])
        second = self.vendor("Many Runs", query="?before=" + first["next"]).json()
        self.assertEqual((len(second["runs"]), second["next"]), (3, None))
        pages = [run["id"] for run in first["runs"] + second["runs"]]
        self.assertEqual(sorted(pages), sorted(ids))
        self.assertEqual(sum(run["counted"] for run in first["runs"] + second["runs"]), 1)  # identical resubmissions
        self.assertEqual([run["id"] for run in second["runs"]][-1], ids[0])  # the oldest last

    def test_vendor_errors(self):
        for name in ("Nobody Here", "<svg onload=x>"):
            r = self.vendor(name)
            self.assertEqual((r.status, r.json()), (404, error("unknown_vendor", f"unknown vendor '{name}'")), name)
            r = self.vendor(name, "/trials")
            self.assertEqual((r.status, r.json()), (404, error("unknown_vendor", f"unknown vendor '{name}'")), name)
        r = self.vendor("Passing Scribe (v2.1)", query="?before=../../etc")
        self.assertEqual((r.status, r.json()), (400, error("invalid_cursor", "before must be a submission id (16 hexadecimal characters)")))
        r = self.vendor("Passing Scribe (v2.1)", query="?page=2")
        self.assertEqual((r.status, r.json()), (400, error("invalid_query", "unknown query parameter; the only one is before=<submission id>")))

    def test_names_stored_by_other_means_are_escaped(self):
        # The API refuses these names; an analyst could still insert them with SQL. Every output
        # escapes them anyway: JSON through the serializer, SVG through badge_svg.
        evil = 'Evil & Co <svg onload="alert(1)">'
        # The sqlite3 shell with the extension loaded: the insert trigger keys the vendor. A
        # sanitizer build's extension cannot load into the plain shell; the release build's
        # computes the same keys.
        name = "'" + evil.replace("'", "''") + "'"
        insert = ("INSERT INTO submissions (id, script_id, kind, vendor, corpus_hash, grader_version, score_total, "
                  "score_drug, score_mental, score_fabrication, unsafe, scribe_output, result) "
                  "SELECT printf('eeee%012d', row_number() OVER (ORDER BY script_id)), script_id, kind, " + name + ", "
                  "corpus_hash, grader_version, 0.9, 0.9, 0.9, 0.9, 0, scribe_output, "
                  "json_set(result, '$.vendor', " + name + ", '$.score_total', 0.9) "
                  "FROM submissions WHERE vendor = 'Passing Scribe (v2.1)';\n")
        if CLUSTER:
            # The record is on the store, whose connections have the extension's pure functions
            # (scribe_vendor_key among them; docs/scale-out.md, Roles: "Store"): the same INSERT
            # through `scribe-store sql`.
            done = stack.write_sql(insert)
        else:
            sql = ".bail on\n.timeout 10000\n.load " + shell_extension(self) + "\n" + insert
            done = subprocess.run(["sqlite3", stack.db_path], input=sql, text=True, capture_output=True, timeout=60)
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        # Written past the program: the edge cache may answer from before for up to 1 s.
        board, _ = edge_fresh(self, lambda: stack.request("GET", "/api/leaderboard"),
                              lambda r: evil in [row["vendor"] for row in r.json()], within=1.5)
        self.assertIn(b'Evil & Co <svg onload=\\"alert(1)\\">', board.body)  # a JSON string, quotes escaped
        stored = stack.request("GET", "/api/submissions/eeee000000000001")
        self.assertEqual(stored.json()["vendor"], evil)
        r = self.badge(evil)
        self.assertEqual(r.status, 200)
        svg_ok(self, r, "90% pass", label=self.label())
        self.assertNotIn(b"<svg onload", r.body)


class EdgeCache(unittest.TestCase):
    """nginx keeps the public reads (fastcgi_cache) until the end of the second each answer was
    made in (the program's X-Accel-Expires): a commit is visible there within 1 s."""

    def badge(self, vendor, headers=None):
        return stack.request("GET", "/api/badge/" + urllib.parse.quote(vendor, safe="") + ".svg", headers=headers)

    def test_a_new_submission_is_visible_in_leaderboard_and_badge_within_one_second(self):
        vendor = "Edge Vendor"
        trials = public_trials()
        for i in range(2):  # two different notes: two runs
            self.assertEqual(stack.submit(trials[0], vendor, reference_note(trials[0]) + f" Run {i}.").status, 201)
        n, label = len(trials), "scribe-trials " + stack.request("GET", "/health").json()["grader_version"]

        def runs_on_board(r):
            return [row["runs"] for row in r.json() if row["vendor"] == vendor]

        waits = []
        for runs in range(3, 7):  # each run a new trial: the badge counts its trials
            trial = trials[runs - 2]
            seen = runs - 2  # trials before this run: trials[0 … runs - 3]
            board_before = runs_on_board(stack.request("GET", "/api/leaderboard"))
            # Warm: both answers come from the edge cache before the commit.
            _, _ = edge_fresh(self, lambda: stack.request("GET", "/api/leaderboard"),
                              lambda r: r.headers.get("x-cache") == "HIT", within=1.5)
            _, _ = edge_fresh(self, lambda: self.badge(vendor), lambda r: r.headers.get("x-cache") == "HIT", within=1.5)
            self.assertEqual(board_before, [runs - 1] if runs - 1 >= 3 else [])
            self.assertEqual(stack.submit(trial, vendor, reference_note(trial)).status, 201)
            acknowledged = time.monotonic()
            _, board_stale = edge_fresh(self, lambda: stack.request("GET", "/api/leaderboard"),
                                        lambda r: runs_on_board(r) == [runs], within=2)
            badge_start = time.monotonic() - acknowledged  # both count from the 201
            _, badge_stale = edge_fresh(
                self, lambda: self.badge(vendor),
                lambda r: ET.fromstring(r.body).get("aria-label") == f"{label}: {seen + 1} of {n} trials", within=2)
            waits.append(max(board_stale or 0.0, badge_start + badge_stale if badge_stale is not None else 0.0))
        print(f"\n  last stale answer to a request sent {', '.join(f'{w:.3f}' for w in waits)} s after the 201",
              flush=True)
        self.assertLessEqual(max(waits), 1.0)

    def test_cached_badges_keep_the_programs_etag(self):
        self.assertEqual(stack.submit(TRIAL, "Etag Vendor", reference_note(TRIAL)).status, 201)
        first, _ = edge_fresh(self, lambda: self.badge("Etag Vendor"), lambda r: r.headers.get("x-cache") == "HIT",
                              within=1.5)
        etag = first.headers["etag"]
        self.assertEqual(etag, '"' + hashlib.sha256(first.body).hexdigest() + '"')  # the program's strong ETag
        direct = stack.read_worker("/api/badge/Etag%20Vendor.svg")
        self.assertEqual((direct.status, direct.headers["etag"], direct.body), (404, etag, first.body))
        # Not passing: a 404 badge is never "not modified", from the edge as from the program
        # (a passing one answers 304: BadgesAndLeaderboard.test_passing_badge_200_and_304).
        again = self.badge("Etag Vendor", {"If-None-Match": etag})
        self.assertEqual((again.status, again.body, again.headers["x-cache"]), (404, first.body, "HIT"))

    def test_the_last_good_answer_is_served_while_the_program_is_unreachable(self):
        good, _ = edge_fresh(self, lambda: stack.request("GET", "/api/leaderboard"),
                             lambda r: r.headers.get("x-cache") == "HIT", within=1.5)
        time.sleep(1.1)  # the entry has expired
        with self.read_workers_unreachable():
            stale = stack.request("GET", "/api/leaderboard")
            self.assertEqual((stale.status, stale.headers.get("x-cache"), stale.body), (200, "STALE", good.body))
            health = stack.request("GET", "/health")  # never kept: the outage shows
            self.assertEqual((health.status, health.json()["error"]["code"]), (503, "unavailable"))
        fresh, _ = edge_fresh(self, lambda: stack.request("GET", "/api/leaderboard"),
                              lambda r: r.headers.get("x-cache") in ("EXPIRED", "MISS", "HIT"), within=1.5)
        self.assertEqual(fresh.status, 200)

    @contextlib.contextmanager
    def read_workers_unreachable(self):
        if CLUSTER:
            # The graders listen on TCP (nothing to rename): with every grader stopped nginx can
            # reach none of its upstreams, as with the renamed socket on one machine.
            with stack.graders_stopped():
                yield
            return
        away = stack.read_socket_path() + ".away"
        os.rename(stack.read_socket_path(), away)  # nginx can no longer reach the read workers
        try:
            yield
        finally:
            os.rename(away, stack.read_socket_path())

    def test_what_is_not_kept(self):
        # Health, stored submissions, vendor pages and submits always reach the program, and so
        # does any request carrying credentials.
        r = stack.submit(TRIAL, "Uncached Vendor", reference_note(TRIAL))
        self.assertEqual(r.status, 201)
        self.assertNotIn("x-cache", r.headers)
        for _ in range(2):
            self.assertNotIn("x-cache", stack.request("GET", "/health").headers)
            for path in ("/api/submissions/" + r.json()["id"], "/api/vendors/Uncached%20Vendor",
                         "/api/vendors/Uncached%20Vendor/trials"):
                self.assertEqual(stack.request("GET", path).headers.get("x-cache"), "BYPASS", path)
        bypass = stack.request("GET", "/api/leaderboard", headers={"Authorization": "Bearer st_x"})
        self.assertEqual((bypass.status, bypass.headers.get("x-cache")), (200, "BYPASS"))
        # The program's header for the edge never reaches a client.
        self.assertNotIn("x-accel-expires", stack.request("GET", "/api/leaderboard").headers)
        self.assertTrue(stack.read_worker("/api/leaderboard").headers["x-accel-expires"].startswith("@"))


class Methodology(unittest.TestCase):
    def test_methodology(self):
        r = stack.request("GET", "/api/methodology")
        self.assertEqual(r.status, 200)
        body = r.json()
        self.assertEqual(body["grader_version"], stack.request("GET", "/health").json()["grader_version"])
        self.assertIn("assertion", body)
        self.assertEqual(body["limitations"][1],
                         "Voices are text-to-speech, which may be easier or harder to transcribe than real speakers.")


class StaticAndCompression(unittest.TestCase):
    def test_spa(self):
        index = stack.request("GET", "/")
        self.assertEqual(index.status, 200)
        self.assertTrue(index.headers["content-type"].startswith("text/html"))
        self.assertEqual(index.headers["cache-control"], "no-cache")
        with open(os.path.join(REPO, "web", "index.html"), "rb") as f:
            self.assertEqual(index.body, f.read())
        deep = stack.request("GET", "/trials/03")
        self.assertEqual((deep.status, deep.body), (200, index.body))
        bare = stack.request("GET", "", prefix="/scribe-trials")
        self.assertEqual((bare.status, bare.headers["location"].endswith("/scribe-trials/")), (301, True))

    def test_gzip_json(self):
        r = stack.request("GET", "/api/scripts", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(r.headers.get("content-encoding"), "gzip")
        self.assertEqual(r.headers.get("vary"), "Accept-Encoding")
        plain = stack.request("GET", "/api/scripts")
        self.assertEqual(gzip.decompress(r.body), plain.body)


if __name__ == "__main__":
    unittest.main()
