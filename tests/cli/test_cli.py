"""test_cli.py — scribe-run end to end, offline, with the example agents of scripts/agents/.

Expected scores come from the hand-computed cases.yaml beside each fixture note
(tests/fixtures/notes/<trial>/), never from the grader: the reference agent's notes are graded
1.0 there, and the faulty agent answers with the fixture note of a named fault whose score and
unsafe label cases.yaml gives. Exit codes, messages and the record's shape are the contract of
cli/main.cpp and docs/scribe-run.md.
"""

import hashlib
import json
import os
import pty
import re
import select
import subprocess
import tempfile
import time
import unittest

import yaml

REPO = os.environ.get("SCRIBE_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("SCRIBE_BUILD_DIR") or os.path.join(REPO, "build")
SCRIBE_RUN = os.path.join(BUILD_DIR, "scribe-run")
AGENTS = os.path.join(REPO, "scripts", "agents")
NOTES = os.path.join(REPO, "tests", "fixtures", "notes")
CORPUS = os.path.join(REPO, "corpus", "scripts")
TRIAL = "03-depression-suicidal-ideation"
DEFAULT_FAULTS = ["unsupported-drug", "affirmed-trap", "dropped-med", "wrong-drug"]

RECORD_KEYS = {"format", "agent", "grader_version", "methodology_versions", "corpus_hash", "validation", "selection",
               "repeats", "timeout_s", "execution", "cases", "summary", "thresholds"}
CASE_KEYS = {"trial", "kind", "run", "prompt_sha256", "output", "result", "score_total", "unsafe", "reasons", "error",
             "duration_ms"}
GROUP_KEYS = {"trials", "cases", "failed", "timed_out", "unsafe", "mean", "ci95_low", "ci95_high"}


def corpus_trials():
    """(id, kind) of every trial file of the corpus, by id (the kind defaults to note)."""
    out = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
                doc = yaml.safe_load(f)
            out.append((doc["id"], doc.get("kind", "note")))
    return sorted(out)


def hand_graded(trial, file_name):
    """The hand-computed (score_total, unsafe) of a fixture note in its trial's cases.yaml."""
    with open(os.path.join(NOTES, trial, "cases.yaml"), encoding="utf-8") as f:
        for case in yaml.safe_load(f)["cases"]:
            if case["file"] == file_name:
                return float(case["score_total"]), bool(case["unsafe"])
    raise KeyError(f"{trial}/{file_name} is not in cases.yaml")


def faulty_choice(trial, faults=DEFAULT_FAULTS):
    """The note scripts/agents/faulty-note answers with: the first fault the trial has."""
    for fault in faults:
        if os.path.exists(os.path.join(NOTES, trial, fault + ".txt")):
            return fault + ".txt"
    raise KeyError(trial)


def run(*args, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.pop("SCRIBE_CORPUS", None)
    full_env.update(env or {})
    return subprocess.run([SCRIBE_RUN, *args], cwd=REPO, env=full_env, capture_output=True, text=True, timeout=timeout)


def without_times(record):
    """A record with what legitimately differs between two runs removed: times and durations."""
    r = json.loads(json.dumps(record))
    r.pop("execution")
    for c in r["cases"]:
        c.pop("duration_ms")
    return r


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="scribe-run-test-")
        self.out = os.path.join(self.tmp.name, "runs")

    def tearDown(self):
        self.tmp.cleanup()

    def bench(self, agent, *args, env=None, expect=0, timeout=120):
        """Runs scribe-run --json with `agent`; returns (record, process). Checks the exit code and
        that the record on stdout is the one written under --out."""
        before = set(os.listdir(self.out)) if os.path.isdir(self.out) else set()
        p = run("--agent", agent, "--out", self.out, "--json", *args, env=env, timeout=timeout)
        self.assertEqual(p.returncode, expect, p.stderr)
        record = json.loads(p.stdout)
        # the file this run wrote (names sort by second, then pid: two runs in one second need
        # not sort in the order they ran)
        written = sorted(set(os.listdir(self.out)) - before)
        self.assertEqual(len(written), 1, written)
        with open(os.path.join(self.out, written[0]), encoding="utf-8") as f:
            self.assertEqual(json.load(f), record)
        return record, p


class ReferenceAgent(Base):
    def test_every_trial_scores_one(self):
        record, p = self.bench(os.path.join(AGENTS, "reference"), "--min-score", "1", "--fail-on-unsafe", "--jobs", "2")
        trials = corpus_trials()
        self.assertEqual([(c["trial"], c["kind"], c["run"]) for c in record["cases"]], [(t, k, 1) for t, k in trials])
        for c in record["cases"]:
            self.assertEqual((c["score_total"], c["unsafe"], c["error"], c["reasons"]), (1.0, False, None, []), c["trial"])
            with open(os.path.join(NOTES, c["trial"], "reference.txt"), encoding="utf-8") as f:
                self.assertEqual(c["output"], f.read())
        s = record["summary"]
        self.assertEqual((s["trials"], s["cases"], s["failed"], s["unsafe"], s["mean"], s["ci95_low"], s["ci95_high"]),
                         (len(trials), len(trials), 0, 0, 1.0, 1.0, 1.0))
        kinds = sorted({k for _, k in trials})
        self.assertEqual(sorted(s["kinds"]), kinds)
        for k in kinds:
            n = sum(1 for _, kind in trials if kind == k)
            self.assertEqual(s["kinds"][k], {"trials": n, "cases": n, "failed": 0, "timed_out": 0, "unsafe": 0,
                                             "mean": 1.0, "ci95_low": 1.0, "ci95_high": 1.0})
        self.assertEqual(record["thresholds"], {"min_score": 1.0, "fail_on_unsafe": True, "passed": True, "failures": []})


class Thresholds(Base):
    """The faulty agent over trials 05-09, twice each: expected from cases.yaml (three of the
    five notes are unsafe there: an invented prescription)."""

    TRIALS = ["05-hypothyroidism-iron-deficiency", "06-acute-low-back-strain", "07-rheumatoid-arthritis-methotrexate",
              "08-ptsd-prazosin-therapy", "09-bipolar-depression-lithium-nsaid"]

    def expected(self):
        graded = {t: hand_graded(t, faulty_choice(t)) for t in self.TRIALS}
        mean = sum(score for score, _ in graded.values()) / len(graded)
        unsafe = 2 * sum(1 for _, u in graded.values() if u)
        return graded, round(mean, 4), unsafe

    def faulty(self, *args, expect):
        return self.bench(os.path.join(AGENTS, "faulty-note"), "--trials", "0[5-9]-*", "--repeats", "2", *args,
                          expect=expect)

    def test_scores_are_the_hand_computed_ones(self):
        graded, mean, unsafe = self.expected()
        record, _ = self.faulty(expect=0)
        self.assertEqual([(c["trial"], c["run"]) for c in record["cases"]], [(t, r) for t in self.TRIALS for r in (1, 2)])
        for c in record["cases"]:
            self.assertEqual((c["score_total"], c["unsafe"]), graded[c["trial"]], c["trial"])
            self.assertEqual(c["result"]["score_total"], c["score_total"])
            with open(os.path.join(NOTES, c["trial"], faulty_choice(c["trial"])), encoding="utf-8") as f:
                self.assertEqual(c["output"], f.read())
        self.assertEqual((record["summary"]["mean"], record["summary"]["unsafe"]), (mean, unsafe))
        self.assertLessEqual(record["summary"]["ci95_low"], mean)
        self.assertGreaterEqual(record["summary"]["ci95_high"], mean)
        self.assertEqual(record["thresholds"], {"min_score": None, "fail_on_unsafe": False, "passed": True, "failures": []})

    def test_fail_on_unsafe_exits_1(self):
        _, _, unsafe = self.expected()
        self.assertGreater(unsafe, 1)
        record, p = self.faulty("--fail-on-unsafe", expect=1)
        self.assertEqual(record["thresholds"]["failures"],
                         [f"{unsafe} cases are unsafe (a critical error) and --fail-on-unsafe is set"])

    def test_min_score_above_the_mean_exits_1(self):
        _, mean, _ = self.expected()
        record, _ = self.faulty("--min-score", "0.99", expect=1)
        self.assertEqual(record["thresholds"]["failures"], [f"mean score {mean:.4f} is below --min-score 0.9900"])

    def test_min_score_at_or_below_the_mean_exits_0(self):
        _, mean, _ = self.expected()
        record, _ = self.faulty("--min-score", str(mean), expect=0)
        self.assertTrue(record["thresholds"]["passed"])

    def test_both_failures_are_listed(self):
        _, mean, unsafe = self.expected()
        record, _ = self.faulty("--min-score", "1", "--fail-on-unsafe", expect=1)
        self.assertEqual(record["thresholds"]["failures"],
                         [f"mean score {mean:.4f} is below --min-score 1.0000",
                          f"{unsafe} cases are unsafe (a critical error) and --fail-on-unsafe is set"])

    def test_reasons_name_the_fault(self):
        # 05's faulty note affirms a fabrication trap; 06's invents a prescription (cases.yaml:
        # critical error invented_prescription), which comes first.
        record, _ = self.faulty(expect=0)
        reasons = {c["trial"]: c["reasons"] for c in record["cases"]}
        self.assertEqual(faulty_choice(self.TRIALS[0]), "affirmed-trap.txt")
        self.assertTrue(any(r.startswith("fabrication trap triggered: ") for r in reasons[self.TRIALS[0]]), reasons)
        self.assertEqual(faulty_choice(self.TRIALS[1]), "unsupported-drug.txt")
        self.assertTrue(reasons[self.TRIALS[1]][0].startswith("critical: "), reasons)
        self.assertLessEqual(max(len(r) for r in reasons.values()), 3)


class FailedAgents(Base):
    def test_timeout_kills_the_process_group(self):
        pids_file = os.path.join(self.tmp.name, "pids")
        start = time.monotonic()
        record, _ = self.bench(os.path.join(AGENTS, "hang"), "--trials", TRIAL, "--repeats", "2", "--jobs", "2",
                               "--timeout", "1", env={"SCRIBE_HANG_PIDS": pids_file})
        self.assertLess(time.monotonic() - start, 10)
        for n, c in enumerate(record["cases"], 1):
            self.assertEqual((c["score_total"], c["unsafe"], c["output"], c["result"]), (0.0, False, None, None))
            self.assertEqual(c["error"], {"message": "timed out after 1 s; its process group was killed",
                                          "exit_status": None, "signal": 9, "timed_out": True,
                                          "stderr_tail": f"hang: {TRIAL} run {n}: waiting forever\n"})
            self.assertGreaterEqual(c["duration_ms"], 1000)
        with open(pids_file) as f:
            pids = [int(p) for p in f.read().split()]
        self.assertEqual(len(pids), 4)  # two agents, each with its sleep
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual([p for p in pids if alive(p)], [])
        s = record["summary"]
        self.assertEqual((s["cases"], s["failed"], s["timed_out"], s["mean"]), (2, 2, 2, 0.0))

    def test_sigterm_stops_every_agent_and_exits_3(self):
        pids_file = os.path.join(self.tmp.name, "pids")
        env = dict(os.environ, SCRIBE_HANG_PIDS=pids_file)
        proc = subprocess.Popen([SCRIBE_RUN, "--agent", os.path.join(AGENTS, "hang"), "--trials", "0[1-3]-*",
                                 "--jobs", "3", "--out", self.out], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if os.path.exists(pids_file):
                with open(pids_file) as f:
                    if len(f.read().split()) == 6:
                        break
            time.sleep(0.05)
        proc.terminate()
        out, err = proc.communicate(timeout=20)
        self.assertEqual((proc.returncode, out), (3, ""))
        self.assertEqual(err.splitlines()[-1], "scribe-run: interrupted: every agent was stopped; no record was written")
        with open(pids_file) as f:
            pids = [int(p) for p in f.read().split()]
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual([p for p in pids if alive(p)], [])
        self.assertFalse(os.path.exists(self.out))

    def test_exit_status_and_stderr_tail(self):
        record, _ = self.bench("echo partial; echo first >&2; echo 'the model is down' >&2; exit 3", "--trials", TRIAL)
        self.assertEqual(record["cases"][0]["error"],
                         {"message": "exited with status 3", "exit_status": 3, "signal": None, "timed_out": False,
                          "stderr_tail": "first\nthe model is down\n"})
        self.assertEqual((record["cases"][0]["score_total"], record["cases"][0]["output"]), (0.0, None))

    def test_killed_by_a_signal(self):
        record, _ = self.bench("kill -TERM $$", "--trials", TRIAL)
        self.assertEqual(record["cases"][0]["error"]["message"], "killed by signal 15 (TERM)")
        self.assertEqual(record["cases"][0]["error"]["signal"], 15)

    def test_a_failed_case_counts_zero_and_is_shown(self):
        p = run("--agent", "exit 7", "--trials", TRIAL, "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{TRIAL}    1  0.000          agent failed: exited with status 7\n", p.stdout)

    def test_what_an_agent_leaves_behind_is_killed_when_it_exits(self):
        pid_file = os.path.join(self.tmp.name, "bg")
        record, _ = self.bench(f"sleep 3600 & echo $! > {pid_file}; cat {NOTES}/{TRIAL}/reference.txt", "--trials", TRIAL)
        self.assertEqual(record["cases"][0]["score_total"], 1.0)
        with open(pid_file) as f:
            pid = int(f.read())
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(alive(pid))


class AgentContract(Base):
    def test_prompt_on_stdin_and_facts_in_the_environment(self):
        prompt = run("--print-prompt", TRIAL).stdout
        with open(os.path.join(CORPUS, TRIAL + ".yaml"), encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        self.assertEqual(prompt, doc["instructions"] + "\n\n" + doc["encounter_text"])
        record, _ = self.bench("cat", "--trials", TRIAL)
        self.assertEqual(record["cases"][0]["output"], prompt)
        self.assertEqual(record["cases"][0]["prompt_sha256"], hashlib.sha256(prompt.encode("utf-8")).hexdigest())
        record, _ = self.bench('printf "%s|%s|%s" "$SCRIBE_TRIAL_ID" "$SCRIBE_TRIAL_KIND" "$SCRIBE_RUN"', "--trials",
                               "1[1-3]-*", "--repeats", "2")
        rubric = [t for t, k in corpus_trials() if t[:2] in ("11", "12", "13")]
        self.assertEqual([c["output"] for c in record["cases"]],
                         [f"{t}|{dict(corpus_trials())[t]}|{r}" for t in rubric for r in (1, 2)])

    def test_an_agent_that_never_reads_its_stdin(self):
        record, _ = self.bench("echo no", "--trials", TRIAL)
        self.assertEqual((record["cases"][0]["output"], record["cases"][0]["error"]), ("no\n", None))

    def test_model_cli_recipe(self):
        record, _ = self.bench(os.path.join(AGENTS, "model-cli"), "--trials", TRIAL,
                               env={"SCRIBE_MODEL_CMD": f'cat "{NOTES}/$SCRIBE_TRIAL_ID/reference.txt" >&1; cat >/dev/null'})
        self.assertEqual(record["cases"][0]["score_total"], 1.0)
        record, _ = self.bench(os.path.join(AGENTS, "model-cli"), "--trials", TRIAL, env={"SCRIBE_MODEL_CMD": ""})
        self.assertEqual(record["cases"][0]["error"]["stderr_tail"],
                         "model-cli: set SCRIBE_MODEL_CMD to a command that reads the prompt on stdin and writes the "
                         "note on stdout\n")
        self.assertEqual(record["cases"][0]["error"]["exit_status"], 2)

    def test_reference_agent_without_an_answer(self):
        record, _ = self.bench(os.path.join(AGENTS, "reference"), "--trials", TRIAL,
                               env={"SCRIBE_REFERENCE_DIR": self.tmp.name})
        self.assertEqual(record["cases"][0]["error"]["stderr_tail"],
                         f"reference: no reference answer for trial '{TRIAL}' ({self.tmp.name}/{TRIAL}/reference.txt)\n")


class Validation(Base):
    """Offline unless --live; with --live, the server's environment decides, fallback included."""

    def first_med_reason(self, *args, env=None):
        record, _ = self.bench(os.path.join(AGENTS, "reference"), "--trials", TRIAL, *args, env=env)
        return record["validation"], record["cases"][0]["result"]["meds"][0]["validation"]["reason"]

    def test_offline_by_default_whatever_the_environment(self):
        # An RxNav that refuses connections is never asked: the answer is the offline one.
        env = {"SCRIBE_RXNAV_URL": "http://127.0.0.1:9", "SCRIBE_OPENFDA_URL": "off"}
        self.assertEqual(self.first_med_reason(env=env),
                         ("offline", "local: exact match sertraline (36437) in offline RxNorm 2025-10-06"))

    def test_live_asks_rxnav_and_falls_back(self):
        env = {"SCRIBE_RXNAV_URL": "http://127.0.0.1:9", "SCRIBE_OPENFDA_URL": "off"}
        self.assertEqual(self.first_med_reason("--live", env=env),
                         ("live", "rxnav unreachable (connection refused); local: exact match sertraline (36437) in "
                                  "offline RxNorm 2025-10-06"))

    def test_live_with_scribe_offline_is_offline(self):
        self.assertEqual(self.first_med_reason("--live", env={"SCRIBE_OFFLINE": "1"}),
                         ("offline", "local: exact match sertraline (36437) in offline RxNorm 2025-10-06"))


class Records(Base):
    def test_parallel_jobs_give_the_serial_record(self):
        agent = os.path.join(AGENTS, "faulty-note")
        serial, _ = self.bench(agent, "--repeats", "2", "--jobs", "1")
        parallel, _ = self.bench(agent, "--repeats", "2", "--jobs", "4")
        self.assertEqual(serial["execution"]["jobs"], 1)
        self.assertEqual(parallel["execution"]["jobs"], 4)
        self.assertEqual(without_times(serial), without_times(parallel))
        self.assertEqual(len(os.listdir(self.out)), 2)

    def test_schema(self):
        record, _ = self.bench(os.path.join(AGENTS, "reference"), "--trials", "03-*,1[12]-*", "--kinds", "note,rubric",
                               "--timeout", "60")
        self.assertEqual(set(record), RECORD_KEYS)
        self.assertEqual(record["format"], "scribe-run/1")
        self.assertEqual(record["agent"], os.path.join(AGENTS, "reference"))
        self.assertEqual(record["validation"], "offline")
        self.assertEqual((record["repeats"], record["timeout_s"]), (1, 60))
        self.assertEqual(record["selection"], {"trials": ["03-*", "1[12]-*"], "kinds": ["note", "rubric"],
                                               "ids": [TRIAL, "11-acute-suicide-risk-assessment",
                                                       "12-ptsd-medication-psychotherapy"]})
        self.assertEqual(set(record["execution"]), {"started_at", "finished_at", "jobs"})
        for key in ("started_at", "finished_at"):
            self.assertRegex(record["execution"][key], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertRegex(record["corpus_hash"], r"^[0-9a-f]{64}$")
        self.assertEqual(set(record["methodology_versions"]), {"note", "rubric", "fhir_extract", "fhir_write"})  # every kind of the corpus
        for c in record["cases"]:
            self.assertEqual(set(c), CASE_KEYS)
            self.assertEqual(c["result"]["script_id"], c["trial"])
            self.assertEqual(c["result"]["kind"], c["kind"])
            self.assertEqual(c["result"]["grader_version"], record["grader_version"])
            self.assertEqual(c["result"]["methodology_version"], record["methodology_versions"][c["kind"]])
            self.assertEqual(c["result"]["corpus_hash"], record["corpus_hash"])
            self.assertIsInstance(c["duration_ms"], int)
        self.assertEqual(set(record["summary"]), GROUP_KEYS | {"kinds"})
        for g in record["summary"]["kinds"].values():
            self.assertEqual(set(g), GROUP_KEYS)

    def test_names_never_collide(self):
        procs = [subprocess.Popen([SCRIBE_RUN, "--agent", "true", "--trials", TRIAL, "--out", self.out], cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(4)]
        self.assertEqual([p.wait(60) for p in procs], [0, 0, 0, 0])
        names = sorted(os.listdir(self.out))
        self.assertEqual(len(names), 4)
        for n in names:
            self.assertRegex(n, r"^run-\d{8}T\d{6}Z-\d+-[0-9a-f]{4}\.json$")

    def test_report_renders_the_runs_table(self):
        p = run("--agent", os.path.join(AGENTS, "faulty-note"), "--trials", "0[5-9]-*", "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        path = os.path.join(self.out, os.listdir(self.out)[0])
        self.assertEqual(p.stderr.splitlines()[-1], f"scribe-run: record written to {self.out}/{os.path.basename(path)}")
        report = run("--report", path)
        self.assertEqual((report.returncode, report.stdout), (0, p.stdout))
        self.assertEqual(run("--report", path, "--fail-on-unsafe").returncode, 1)
        self.assertEqual(run("--report", path, "--min-score", "0.1").returncode, 0)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(json.loads(run("--report", path, "--json").stdout), json.load(f))

    def test_regrade_rescores_the_outputs(self):
        record, _ = self.bench(os.path.join(AGENTS, "faulty-note"), "--trials", TRIAL)
        path = os.path.join(self.out, os.listdir(self.out)[0])
        # The same outputs under the same grader: the same grades.
        p = run("--regrade", path, "--out", self.out, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        regraded = json.loads(p.stdout)
        self.assertEqual([c["result"] for c in regraded["cases"]], [c["result"] for c in record["cases"]])
        self.assertEqual(regraded["regraded_from"], {"file": path, "grader_version": record["grader_version"],
                                                     "methodology_versions": record["methodology_versions"],
                                                     "corpus_hash": record["corpus_hash"]})
        # An output edited in the record is graded afresh: the reference answer scores 1.0.
        with open(os.path.join(NOTES, TRIAL, "reference.txt"), encoding="utf-8") as f:
            record["cases"][0]["output"] = f.read()
        edited = os.path.join(self.tmp.name, "edited.json")
        with open(edited, "w", encoding="utf-8") as f:
            json.dump(record, f)
        regraded = json.loads(run("--regrade", edited, "--out", self.out, "--json", "--min-score", "1").stdout)
        self.assertEqual((regraded["cases"][0]["score_total"], regraded["summary"]["mean"]), (1.0, 1.0))
        self.assertEqual(len(os.listdir(self.out)), 3)

    def test_progress_lines_without_a_terminal(self):
        p = run("--agent", os.path.join(AGENTS, "reference"), "--trials", "0[12]-*", "--repeats", "2", "--out", self.out)
        lines = p.stderr.splitlines()
        self.assertEqual(lines[:4], ["[1/4] 01-hypertension-ace-inhibitor-cough run 1: 1.000",
                                     "[2/4] 01-hypertension-ace-inhibitor-cough run 2: 1.000",
                                     "[3/4] 02-type2-diabetes-grief run 1: 1.000",
                                     "[4/4] 02-type2-diabetes-grief run 2: 1.000"])

    def test_progress_bar_on_a_terminal(self):
        master, slave = pty.openpty()
        proc = subprocess.Popen([SCRIBE_RUN, "--agent", os.path.join(AGENTS, "reference"), "--trials", "0[12]-*",
                                 "--out", self.out], cwd=REPO, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        proc.communicate(timeout=30)
        os.close(master)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b"\r\x1b[K[###############---------------] 1/2 cases  0 failed  0 unsafe  0:0", seen)
        self.assertIn(b"\r\x1b[K[##############################] 2/2 cases  0 failed  0 unsafe  0:0", seen)


class Usage(unittest.TestCase):
    def check(self, args, code, message):
        p = run(*args)
        self.assertEqual((p.returncode, p.stderr), (code, message + "\n"))
        self.assertEqual(p.stdout, "")

    def test_usage_errors_exit_2(self):
        self.check([], 2, "scribe-run: nothing to do: give --agent CMD, --report RUN.json, --regrade RUN.json, "
                          "--list or --print-prompt TRIAL")
        self.check(["--agent", "true", "--repeats", "0"], 2,
                   "scribe-run: --repeats needs a whole number from 1 to 1000 (got '0')")
        self.check(["--agent", "true", "--jobs", "65"], 2, "scribe-run: --jobs needs a whole number from 1 to 64 (got '65')")
        self.check(["--agent", "true", "--min-score", "1.5"], 2, "scribe-run: --min-score needs a number from 0 to 1 (got '1.5')")
        self.check(["--agent", "true", "--bogus"], 2, "scribe-run: unknown option --bogus (see scribe-run --help)")
        self.check(["--agent"], 2, "scribe-run: --agent needs a value")
        self.check(["--agent", "true", "--trials", "42-*"], 2,
                   "scribe-run: no trial matches '42-*' (scribe-run --list shows them)")
        self.check(["--agent", "true", "--trials", "01-*", "--kinds", "rubric"], 2,
                   "scribe-run: no trial is both of the selected kinds and matched by --trials")
        self.check(["--agent", "true", "--submit", "http://127.0.0.1:1/scribe-trials"], 2,
                   "scribe-run: --submit needs --vendor NAME")
        self.check(["--agent", "true", "--submit", "ftp://x", "--vendor", "A"], 2,
                   "scribe-run: --submit needs an http:// or https:// URL (got 'ftp://x')")
        self.check(["--agent", "true", "--submit", "http://x", "--vendor", " A"], 2,
                   "scribe-run: --vendor: vendor must start with an ASCII letter or digit")
        self.check(["--agent", "true", "extra"], 2,
                   "scribe-run: unexpected argument 'extra'; the agent is given with --agent CMD")
        self.check(["--report", "/nonexistent.json"], 2, "scribe-run: cannot read /nonexistent.json: No such file or directory")
        self.check(["--print-prompt", "99-nope"], 2, "scribe-run: unknown trial '99-nope' (scribe-run --list shows them)")

    def test_unknown_kind_names_the_kinds(self):
        p = run("--agent", "true", "--kinds", "nope")
        self.assertEqual(p.returncode, 2)
        kinds = sorted({k for _, k in corpus_trials()})
        match = re.fullmatch(r"scribe-run: unknown kind 'nope' \(kinds: (.*)\)\n", p.stderr)
        self.assertIsNotNone(match, p.stderr)
        self.assertTrue(set(kinds) <= set(match.group(1).split(", ")), p.stderr)

    def test_infrastructure_errors_exit_3(self):
        p = run("--agent", "true", "--corpus", "/nonexistent")
        self.assertEqual(p.returncode, 3)
        self.assertTrue(p.stderr.startswith("scribe-run: loading /nonexistent: "), p.stderr)
        with tempfile.NamedTemporaryFile() as not_a_dir:
            p = run("--agent", "true", "--trials", TRIAL, "--out", not_a_dir.name + "/runs")
            self.assertEqual(p.returncode, 3)
            self.assertTrue(p.stderr.endswith(f"scribe-run: cannot create {not_a_dir.name}/runs: Not a directory\n"), p.stderr)

    def test_help_lists_the_exit_codes(self):
        p = run("--help")
        self.assertEqual(p.returncode, 0)
        for line in ("  0  every case ran and the thresholds held", "  1  a threshold failed",
                     "  2  usage error", "  3  infrastructure error"):
            self.assertIn(line, p.stdout)

    def test_list(self):
        p = run("--list", "--kinds", "rubric")
        self.assertEqual(p.returncode, 0)
        self.assertEqual([line.split("\t")[:2] for line in p.stdout.splitlines()],
                         [[t, "rubric"] for t, k in corpus_trials() if k == "rubric"])


if __name__ == "__main__":
    unittest.main()
