#!/usr/bin/python3
"""Write tests/sql/rubric/<id>.test from the hand-computed expectations in
tests/fixtures/notes/<id>/cases.yaml of every rubric trial (cases.yaml with `kind: rubric`),
never from grader output: for every note the total, score_total and unsafe, every item whose
credit is not full (id:credit:points), the deductions (severity:source:points) and the sorted
critical errors (kind, or kind:id for trial rules and critical facts). Cases marked
`known_defect` (the grader disagrees and the expectation is right) go to
tests/sql/rubric/<id>.known-defects, which ctest runs expecting it to fail (WILL_FAIL, like a
strict xfail): the main file keeps guarding everything else, and the day a fix makes every known
defect of a trial pass, that ctest fails and says the cases belong in the main file.

Before writing, each case is checked for arithmetic the hand computation must satisfy, using
only the trial file (item points, category totals) and corpus/rules/rubric.yaml (severities,
partial credit): total = max(0, 100 - points lost on items - deductions), score_total =
total / 100, partial = partial_credit x points, full = points, absent/incorrect = 0.

    /usr/bin/python3 tests/tools/gen_rubric_tests.py           # write the .test files
    /usr/bin/python3 tests/tools/gen_rubric_tests.py --check   # also grade each note with
        build/scribe.so through the sqlite3 shell and print every disagreement (a development
        aid: the committed acceptance tests are the .test files)
"""
import json
import pathlib
import subprocess
import sys

import yaml

root = pathlib.Path(__file__).resolve().parents[2]
out_dir = root / "tests/sql/rubric"
rules = yaml.safe_load((root / "corpus/rules/rubric.yaml").read_text())
severity_points = {s["name"]: s["points"] for s in rules["severities"]}
default_partial = rules["partial_credit"]


def num(v):
    """A number as SQLite's printf('%g') writes it."""
    return f"{float(v):g}"


def real(v):
    """A real column as the sqllogic runner prints it (SQLite's text of a REAL)."""
    v = round(float(v), 4)
    return repr(v) if v != int(v) else f"{int(v)}.0"


def checklist(trial_id):
    trial = yaml.safe_load((root / "corpus/scripts" / f"{trial_id}.yaml").read_text())
    items = {}
    for item in trial["rubric"]["items"]:
        items[item["id"]] = (float(item["points"]), float(item.get("partial_credit", default_partial)))
    return items


def expected(case, items, where):
    """(non-full item strings, deduction strings, critical strings, total) after checking the arithmetic."""
    others = case.get("others", "full")
    listed = case.get("items") or {}
    lost, not_full = 0.0, []
    for item_id, (points, partial_credit) in items.items():
        credit, got = listed.get(item_id, [others, None])
        want = {"full": points, "partial": points * partial_credit, "absent": 0.0, "incorrect": 0.0}[credit]
        if got is not None and abs(float(got) - want) > 1e-9:
            sys.exit(f"{where}: {item_id} {credit} is {num(want)} points, the case says {num(got)}")
        lost += points - want
        if credit != "full":
            not_full.append(f"{item_id}:{credit}:{num(want)}")
    for item_id in listed:
        if item_id not in items:
            sys.exit(f"{where}: no item {item_id!r} in the trial")
    deductions = [f"{sev}:{source}:{num(severity_points[sev])}" for sev, source in case.get("deductions") or []]
    deducted = sum(severity_points[sev] for sev, _ in case.get("deductions") or [])
    total = max(0.0, sum(p for p, _ in items.values()) - lost - deducted)
    if abs(total - float(case["total"])) > 1e-9:
        sys.exit(f"{where}: the items and deductions give {num(total)}, the case says {case['total']}")
    if abs(total / 100 - float(case["score_total"])) > 1e-9:
        sys.exit(f"{where}: score_total must be {total / 100}")
    critical = sorted(case.get("critical_errors") or [])
    if bool(critical) != bool(case["unsafe"]):
        sys.exit(f"{where}: unsafe must be {bool(critical)} with critical errors {critical}")
    return sorted(not_full), sorted(deductions), critical, total


def queries(trial_id, note):
    grade = f"grade_submission('{trial_id}', readfile('{note}'))"
    return {
        "scores": ("query RRI",
                   "SELECT json_extract(r, '$.rubric.total'), json_extract(r, '$.score_total'), json_extract(r, '$.unsafe')\n"
                   f"FROM (SELECT {grade} AS r)"),
        "items": ("query T",
                  "SELECT coalesce(group_concat(x, ' '), '-') FROM (SELECT (value ->> '$.id') || ':' || (value ->> '$.credit') || ':' ||\n"
                  f"  printf('%g', value ->> '$.points') AS x FROM json_each({grade}, '$.rubric.items')\n"
                  "  WHERE value ->> '$.credit' != 'full' ORDER BY x)"),
        "deductions": ("query T",
                       "SELECT coalesce(group_concat(x, ' '), '-') FROM (SELECT (value ->> '$.severity') || ':' || (value ->> '$.source') || ':' ||\n"
                       f"  printf('%g', value ->> '$.points') AS x FROM json_each({grade}, '$.rubric.deductions') ORDER BY x)"),
        "critical": ("query T",
                     "SELECT coalesce(group_concat(k, ' '), '-') FROM (SELECT (value ->> '$.kind') || coalesce(':' || (value ->> '$.id'), '') AS k\n"
                     f"  FROM json_each({grade}, '$.critical_errors') ORDER BY k)"),
    }


def check(trial_id, note, want):
    """Disagreements between the grader and the expectation, as lines (--check)."""
    out = subprocess.run(["sqlite3", ":memory:", ".load build/scribe", "select scribe_load_corpus('corpus/scripts')",
                          f"select grade_submission('{trial_id}', readfile('{note}'))"],
                         cwd=root, capture_output=True, text=True)
    try:
        r = json.loads(out.stdout.splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return [f"cannot grade: {out.stderr.strip()}"]
    not_full, deductions, critical, total = want
    got = (sorted(f"{i['id']}:{i['credit']}:{num(i['points'])}" for i in r["rubric"]["items"] if i["credit"] != "full"),
           sorted(f"{d['severity']}:{d['source']}:{num(d['points'])}" for d in r["rubric"]["deductions"]),
           sorted(c["kind"] + (":" + c["id"] if "id" in c else "") for c in r["critical_errors"]),
           float(r["rubric"]["total"]))
    lines = []
    for name, w, g in zip(("items", "deductions", "critical", "total"), want, got):
        if w != g:
            lines.append(f"  {name}: want {w}\n  {' ' * len(name)}  got  {g}")
    return lines


def main():
    do_check = "--check" in sys.argv[1:]
    out_dir.mkdir(parents=True, exist_ok=True)
    disagreements = 0
    for cases_file in sorted((root / "tests/fixtures/notes").glob("*/cases.yaml")):
        spec = yaml.safe_load(cases_file.read_text())
        if spec.get("kind") != "rubric":
            continue
        trial_id = spec["trial"]
        items = checklist(trial_id)
        header = [f"# Generated by tests/tools/gen_rubric_tests.py from {cases_file.relative_to(root)}:",
                  "# expected values were computed by hand from the rubric rules (seed 001), not taken from the grader.",
                  "", "statement ok", "SELECT scribe_load_corpus('corpus/scripts')", ""]
        passing = list(header)
        defects = header[:2] + ["# Every case here is a KNOWN GRADER DEFECT: the expectation is right and the grader is not;",
                                "# ctest expects this file to fail (WILL_FAIL); once the grader is fixed, move its cases to the main file."] + header[2:]
        for case in spec["cases"]:
            lines = defects if case.get("known_defect") else passing
            note = (cases_file.parent / case["file"]).relative_to(root)
            want = expected(case, items, f"{cases_file.relative_to(root)}: {case['file']}")
            not_full, deductions, critical, total = want
            why = " ".join(str(case.get("why", "")).split())
            lines.append(f"# {case['file']} ({case['fault']}): {why}")
            if case.get("known_defect"):
                lines.append("# KNOWN GRADER DEFECT (expected to fail until the grader is fixed): " +
                             " ".join(str(case["known_defect"]).split()))
            q = queries(trial_id, note)
            for key, rows in (("scores", "\t".join([real(total), real(case["score_total"]), "1" if case["unsafe"] else "0"])),
                              ("items", " ".join(not_full) or "-"),
                              ("deductions", " ".join(deductions) or "-"),
                              ("critical", " ".join(critical) or "-")):
                kind, sql = q[key]
                lines += [kind, sql, "----", rows, ""]
            if do_check:
                problems = check(trial_id, note, want)
                if problems:
                    disagreements += 1
                    tag = " (known defect)" if case.get("known_defect") else ""
                    print(f"DISAGREES {trial_id}/{case['file']}{tag}:\n" + "\n".join(problems))
        for name, lines in ((f"{trial_id}.test", passing), (f"{trial_id}.known-defects", defects)):
            path = out_dir / name
            if lines is defects and len(defects) == len(header) + 2:
                path.unlink(missing_ok=True)
                continue
            path.write_text("\n".join(lines))
            print("wrote", path.relative_to(root))
    if do_check:
        print(f"{disagreements} notes disagree with the grader")


if __name__ == "__main__":
    main()
