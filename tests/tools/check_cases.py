#!/usr/bin/python3
"""Compare every hand-computed expectation in tests/fixtures/notes/*/cases.yaml with the
grader (build/scribe.so through the sqlite3 shell). Prints disagreements; exit 1 if any.
A development aid: the committed acceptance tests are tests/sql/trials/*.test."""
import json, pathlib, subprocess, sys, yaml

root = pathlib.Path(__file__).resolve().parents[2]
ext = sys.argv[1] if len(sys.argv) > 1 else "build/scribe"
bad = 0
for cases_file in sorted((root / "tests/fixtures/notes").glob("*/cases.yaml")):
    spec = yaml.safe_load(cases_file.read_text())
    if spec.get("kind") in ("fhir_extract", "fhir_write"):
        continue  # no seed-000 columns; tests/sql/fhir/ pins them
    for case in spec["cases"]:
        note = cases_file.parent / case["file"]
        out = subprocess.run(["sqlite3", ":memory:", f".load {ext}", "select scribe_load_corpus('corpus/scripts')",
                              f"select grade_submission('{spec['trial']}', readfile('{note.relative_to(root)}'))"],
                             cwd=root, capture_output=True, text=True)
        try:
            r = json.loads(out.stdout.splitlines()[-1])
        except Exception:
            print("ERROR", note, out.stderr); bad += 1; continue
        got = {k: r[k] for k in ("score_drug", "score_mental", "score_fabrication", "score_total", "unsafe")}
        got_kinds = sorted(c["kind"] for c in r["critical_errors"])
        want = {k: case[k] for k in got}
        want_kinds = sorted(case.get("critical_errors") or [])
        if any(abs(float(got[k]) - float(want[k])) > 1e-4 for k in ("score_drug", "score_mental", "score_fabrication", "score_total")) \
                or bool(got["unsafe"]) != bool(want["unsafe"]) or got_kinds != want_kinds:
            bad += 1
            print(f"MISMATCH {spec['trial']}/{case['file']}: want {want} {want_kinds}\n    got  {got} {got_kinds}")
print(f"{bad} mismatches")
sys.exit(1 if bad else 0)
