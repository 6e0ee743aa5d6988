#!/usr/bin/env python3
# eval_sigs.py -- field-level accuracy of the grader's sig reading on the committed sig test set.
#
# Usage:   python3 scripts/eval_sigs.py [--reader build/tests/sig_read] [--errors] [--write | --check]
#                                       [--doseminer-full PATH]
#
# Reads tests/fixtures/sigs/sigs.tsv (derived by scripts/derive_sig_fixtures.py from parsigs, MIT,
# and ParseRx, Apache-2.0) with the hand-checked labels of tests/fixtures/sigs/labels.tsv (set "dev":
# the sigs the rules were developed against; "heldout": ParseRx sigs labelled before their readings
# were looked at, and never tuned to), and
# tests/fixtures/sigs/doseminer.tsv (doseminer, MIT: labels of a text-mining algorithm, reported as
# agreement, not accuracy). Every sig goes through build/tests/sig_read, which reads it exactly as
# extract_drugs and the grader do.
#
# Fields (labels.tsv conventions: tests/fixtures/sigs/README.md):
#   drug     the set of drugs extract_drugs finds equals the labelled one (none for a sig that
#            names no drug: an abbreviation read as a drug is an error)
#   dose     amount per administration: same unit, value within 1 %, both ends of a range
#   per_day  administrations per day within 1 % (both absent counts as correct)
#   prn      as needed or not
#   route    canonical route (both absent counts as correct)
# A sig whose labelled drug is found is read from that mention's window; otherwise from the whole
# sig (ReadWholeSig), as ground truth is.
#
# --write stores the figures in tests/fixtures/sigs/accuracy.tsv; --check (the ctest sigs/accuracy)
# fails when they differ from the stored ones. --errors lists every wrong field.

import argparse
import collections
import csv
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(REPO, "tests", "fixtures", "sigs")
FIELDS = ["drug", "dose", "per_day", "prn", "route"]
TOLERANCE = 0.01


def read_tsv(name):
    with open(os.path.join(FIX, name), encoding="utf-8", newline="") as f:
        rows = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    header, body = rows[0], rows[1:]
    return [dict(zip(header, r + [""] * (len(header) - len(r)))) for r in body]


def number(s):
    s = s.strip()
    if not s:
        return None
    if "/" in s:
        a, b = s.split("/")
        return float(a) / float(b)
    return float(s)


def parse_dose(s):
    """'1000 mg' -> (1000, None, 'mg'); '1-2 tablet' -> (2, 1, 'tablet'); '' -> None."""
    s = s.strip()
    if not s:
        return None
    amount, unit = s.rsplit(" ", 1)
    if "-" in amount:
        lo, hi = amount.split("-")
        return (number(hi), number(lo), unit)
    return (number(amount), None, unit)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE * max(abs(a), 1e-9)


def dose_ok(label, reading):
    if label is None:
        return reading is None
    if reading is None:
        return False
    value, low, unit = label
    return unit == reading["unit"] and close(value, reading["value"]) and close(low, reading["low"])


def run_reader(reader, rows):
    text = "".join(f"{i}\t{s}\n" for i, s in rows)
    out = subprocess.run([reader], input=text, capture_output=True, text=True, check=True).stdout
    return {r["id"]: r for r in (json.loads(l) for l in out.splitlines() if l.strip())}


def score_labelled(sigs, labels, readings, show_errors, show_heldout):
    counts = collections.defaultdict(lambda: [0, 0])  # (group, field) -> [correct, total]
    for lab in labels:
        sid = lab["id"]
        groups = (f"{lab['set']}:{sigs[sid]['source']}", lab["set"], "all")
        r = readings[sid]
        found = sorted({d["drug"] or d["key"] for d in r["drugs"]})
        want = [lab["drug"]] if lab["drug"] else []
        mention = next((d for d in r["drugs"] if lab["drug"] and d["drug"] == lab["drug"]), None)
        reading = mention or r["sig"]
        got = {
            "drug": found == want,
            "dose": dose_ok(parse_dose(lab["dose"]), reading["dose"]),
            "per_day": close(number(lab["per_day"]), reading["per_day"]),
            "prn": (lab["prn"] == "1") == reading["prn"],
            "route": (lab["route"] or None) == reading["route"],
        }
        for f in FIELDS:
            for g in groups:
                counts[(g, f)][0] += got[f]
                counts[(g, f)][1] += 1
            if show_errors and not got[f] and (lab["set"] != "heldout" or show_heldout):
                shown = {"drug": found, "dose": reading["dose"], "per_day": reading["per_day"], "prn": reading["prn"],
                         "route": reading["route"]}[f]
                print(f"  {sid} {f}: label {lab[f]!r}, read {shown!r}  | {sigs[sid]['sig']}")
    return counts


def dm_number(s):
    try:
        return float(s)
    except ValueError:
        return None


def score_doseminer(rows, readings, show_errors):
    agree = collections.defaultdict(lambda: [0, 0])
    for row in rows:
        r = readings[row["id"]]["sig"]
        prn = row["optional"] == "yes"
        agree["prn"][0] += prn == r["prn"]
        agree["prn"][1] += 1
        df_min, df_max, di_min, di_max = (dm_number(row[k]) for k in ("df_min", "df_max", "di_min", "di_max"))
        if df_min and df_max and di_min and df_min == df_max and di_min == di_max:
            ok = close(df_max / di_min, r["per_day"])
            agree["per_day"][0] += ok
            agree["per_day"][1] += 1
            if show_errors and not ok:
                print(f"  {row['id']} per_day: doseminer {df_max / di_min:g}, read {r['per_day']!r}  | {row['sig']}")
        dn_min, dn_max = dm_number(row["dn_min"]), dm_number(row["dn_max"])
        if dn_min is not None and dn_max is not None and dn_max > 0:
            d = r["dose"]
            ok = d is not None and close(dn_max, d["value"]) and close(dn_min if dn_min != dn_max else None, d["low"])
            agree["dose"][0] += ok
            agree["dose"][1] += 1
    return agree


def table(counts, agree):
    lines = ["group\tfield\tcorrect\ttotal"]
    for src in sorted({s for s, _ in counts}):
        for f in FIELDS:
            c, t = counts[(src, f)]
            lines.append(f"{src}\t{f}\t{c}\t{t}")
    for f in ("dose", "per_day", "prn"):
        c, t = agree[f]
        lines.append(f"doseminer-agreement\t{f}\t{c}\t{t}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reader", default=os.path.join(REPO, "build", "tests", "sig_read"))
    ap.add_argument("--errors", action="store_true", help="list wrong fields of the development set")
    ap.add_argument("--heldout-errors", action="store_true", help="also of the held-out set")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--doseminer-full", help="the full upstream common_doses_textmining.csv, for a report")
    a = ap.parse_args()

    sigs = {r["id"]: r for r in read_tsv("sigs.tsv")}
    labels = read_tsv("labels.tsv")
    for lab in labels:
        if lab["id"] not in sigs:
            sys.exit(f"eval_sigs: labels.tsv: unknown id {lab['id']}")
    dm = read_tsv("doseminer.tsv")
    readings = run_reader(a.reader, [(l["id"], sigs[l["id"]]["sig"]) for l in labels] + [(r["id"], r["sig"]) for r in dm])
    counts = score_labelled(sigs, labels, readings, a.errors or a.heldout_errors, a.heldout_errors)
    agree = score_doseminer(dm, readings, a.errors)
    figures = table(counts, agree)

    print(f"{'set:source':<24}" + "".join(f"{f:>16}" for f in FIELDS))
    order = {"dev": 1, "heldout": 3, "all": 4}
    for src in sorted({s for s, _ in counts}, key=lambda s: (order.get(s, 0 if s.startswith("dev:") else 2), s)):
        cells = []
        for f in FIELDS:
            c, t = counts[(src, f)]
            cells.append(f"{100 * c / t:6.1f}% {c:>3}/{t:<3}")
        print(f"{src:<24}" + "".join(f"{x:>16}" for x in cells))
    print("doseminer agreement (algorithm labels, every 10th row): " +
          ", ".join(f"{f} {100 * agree[f][0] / max(agree[f][1], 1):.1f}% ({agree[f][0]}/{agree[f][1]})"
                    for f in ("dose", "per_day", "prn")))
    if a.doseminer_full:
        with open(a.doseminer_full, encoding="utf-8", errors="replace") as f:
            full = [{"id": f"full-{r['ID']}", "sig": " ".join(r["PRESCRIPTION"].split()), "dn_min": r["DN MIN"],
                     "dn_max": r["DN MAX"], "df_min": r["DF MIN"], "df_max": r["DF MAX"], "di_min": r["DI MIN"],
                     "di_max": r["DI MAX"], "optional": r["OPTIONAL"]} for r in csv.DictReader(f)]
        fr = run_reader(a.reader, [(r["id"], r["sig"]) for r in full])
        fa = score_doseminer(full, fr, False)
        print("doseminer agreement (all rows): " +
              ", ".join(f"{f} {100 * fa[f][0] / max(fa[f][1], 1):.1f}% ({fa[f][0]}/{fa[f][1]})" for f in ("dose", "per_day", "prn")))

    path = os.path.join(FIX, "accuracy.tsv")
    if a.write:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(figures)
    if a.check:
        with open(path, encoding="utf-8") as f:
            stored = f.read()
        if stored != figures:
            sys.stderr.write("eval_sigs: figures differ from tests/fixtures/sigs/accuracy.tsv\n")
            for old, new in zip(stored.splitlines(), figures.splitlines()):
                if old != new:
                    sys.stderr.write(f"  stored {old!r}, now {new!r}\n")
            sys.exit(1)
        print("eval_sigs: figures match tests/fixtures/sigs/accuracy.tsv")


if __name__ == "__main__":
    main()
