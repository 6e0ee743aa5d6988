#!/usr/bin/env python3
# derive_sig_fixtures.py -- build the sig test set under tests/fixtures/sigs/ from public data.
#
# Usage:   python3 scripts/derive_sig_fixtures.py [DATA_DIR] [--draft]
#          DATA_DIR defaults to <repo>/../shared/data (its sig_parsing/ folder is read).
#          --draft also prints, for the parsigs and ParseRx-30 cases, labels converted from the
#          upstream expectations (a starting point for tests/fixtures/sigs/labels.tsv, which is
#          written and checked by hand and never by this script).
#
# Inputs (stdlib only; output deterministic, LF line endings):
#   sig_parsing/parsigs/parsigs_test_cases.json -- royashcenazi/parsigs @ 0c4c437 (MIT): the 29
#       hand-written test vectors of tests/test_parsig_api.py.
#   sig_parsing/parserx/input_30.csv, output_30.jsonl -- coderxio/parserx @ 77cedb5 (Apache-2.0):
#       30 sigs and ParseRx's machine parse of them.
#   sig_parsing/parserx/input_sigs_250.csv -- coderxio/parserx @ 85d213c (Apache-2.0): 250 real
#       free-text sigs, unlabelled upstream.
#   sig_parsing/doseminer/common_doses_textmining.csv -- Selbosh/doseminer @ 7794ef6 (MIT):
#       56,114 UK primary-care dosage strings with the labels of the Karystianis et al. (2016)
#       text-mining algorithm (an algorithm's output, not human gold).
#
# Outputs (tests/fixtures/sigs/):
#   sigs.tsv              id, source, sig -- every parsigs, ParseRx-30 and ParseRx-250 sig
#   upstream_labels.tsv   id, upstream expectation as JSON (parsigs expected[0]; ParseRx parse)
#   doseminer.tsv         every 10th doseminer row (by ID order): id, sig and its labels
# The hand-checked labels (labels.tsv) and README.md are committed beside them, not generated.

import csv
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
DATA = os.path.abspath(ARGS[0]) if ARGS else os.path.normpath(os.path.join(REPO, "..", "shared", "data"))
SRC = os.path.join(DATA, "sig_parsing")
OUT = os.path.join(REPO, "tests", "fixtures", "sigs")
DOSEMINER_EVERY = 10


def clean(s):
    """One line of text: tabs and line breaks become spaces, outer space trimmed."""
    return " ".join(s.replace("\t", " ").split())


def write(name, header, rows):
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def parsigs():
    with open(os.path.join(SRC, "parsigs", "parsigs_test_cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    return [(f"ps-{i:02d}", "parsigs", clean(c["sig"]), c["expected"][0]) for i, c in enumerate(cases, 1)]


def parserx30():
    with open(os.path.join(SRC, "parserx", "input_30.csv"), encoding="utf-8") as f:
        sigs = [clean(l) for l in f if l.strip()]
    with open(os.path.join(SRC, "parserx", "output_30.jsonl"), encoding="utf-8") as f:
        parses = [json.loads(l) for l in f if l.strip()]
    if len(sigs) != len(parses):
        sys.exit("derive_sig_fixtures: input_30.csv and output_30.jsonl differ in length")
    keep = ["dose", "dose_max", "dose_unit", "strength", "strength_max", "strength_unit", "route", "frequency",
            "frequency_max", "period", "period_max", "period_unit", "as_needed"]
    return [(f"px30-{i:02d}", "parserx-30", s, {k: p.get(k) for k in keep}) for i, (s, p) in enumerate(zip(sigs, parses), 1)]


def parserx250():
    with open(os.path.join(SRC, "parserx", "input_sigs_250.csv"), encoding="utf-8") as f:
        lines = [clean(l) for l in f]
    return [(f"px-{i:03d}", "parserx-250", s, None) for i, s in enumerate([l for l in lines if l], 1)]


def doseminer():
    rows = []
    with open(os.path.join(SRC, "doseminer", "common_doses_textmining.csv"), encoding="utf-8", errors="replace") as f:
        for r in csv.DictReader(f):
            rows.append(r)
    rows.sort(key=lambda r: int(r["ID"]))
    cols = ["DN MIN", "DN MAX", "DF MIN", "DF MAX", "DI MIN", "DI MAX", "OPTIONAL", "DOSE UNIT"]
    out = []
    for r in rows[::DOSEMINER_EVERY]:
        out.append([f"dm-{int(r['ID']):05d}", clean(r["PRESCRIPTION"])] + [clean(r[c]) for c in cols])
    return ["id", "sig", "dn_min", "dn_max", "df_min", "df_max", "di_min", "di_max", "optional", "dose_unit"], out


# ------------------------------------------------------------------ drafts (--draft only)

def per_day_of(ftype, interval, times):
    days = {"Hour": 1 / 24, "Day": 1, "Week": 7, "Month": 30}.get(ftype)
    if days is None:
        return ""
    return repr(round((times or 1) / ((interval or 1) * days), 6))


def draft_parsigs(case):
    e = case[3]
    form = {"pill": "tablet"}.get(e["form"], e["form"]) or "each"
    count = e["singleDosageAmount"]
    dose = f"{count:g} {form}"
    if e.get("strength"):
        num = float("".join(ch for ch in e["strength"] if ch.isdigit() or ch == "."))
        dose = f"{num * count:g} mg"
    return [case[0], e["drug"] or "", dose, per_day_of(e["frequencyType"], e["interval"], e["times"]),
            "1" if e["takeAsNeeded"] else "0", "", "draft from upstream"]


def main():
    os.makedirs(OUT, exist_ok=True)
    ps, p30, p249 = parsigs(), parserx30(), parserx250()
    write("sigs.tsv", ["id", "source", "sig"], [[i, src, s] for i, src, s, _ in ps + p30 + p249])
    write("upstream_labels.tsv", ["id", "upstream"],
          [[i, json.dumps(e, sort_keys=True)] for i, _, _, e in ps + p30 if e is not None])
    header, rows = doseminer()
    write("doseminer.tsv", header, rows)
    sys.stderr.write(f"derive_sig_fixtures: {len(ps)} parsigs, {len(p30)} ParseRx-30, {len(p249)} ParseRx-250 sigs, "
                     f"{len(rows)} doseminer rows -> {os.path.relpath(OUT, REPO)}\n")
    if "--draft" in sys.argv[1:]:
        for c in ps:
            print("\t".join(draft_parsigs(c)))


if __name__ == "__main__":
    main()
