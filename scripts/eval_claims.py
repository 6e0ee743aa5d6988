#!/usr/bin/env python3
"""Measure the unsupported-content detector (scribe_claims) on faithful notes.

A faithful note should have no unsupported claims. This script reads notes against the encounter
they were written from and reports how many claims each note makes and how many of them the
detector finds unsupported:

  * the corpus: every tests/fixtures/notes/<trial>/reference.txt and the paraphrase notes in
    tests/fixtures/claims/<trial>/*.txt against corpus/scripts/<trial>.yaml's encounter_text
    (expected: zero unsupported);
  * ACI-Bench (Yim et al., Nature Scientific Data 2023, CC-BY-4.0): the reference visit notes
    against their doctor-patient dialogues. These notes were written by clinicians from the
    dialogue *and* the chart, so some of what they say (vitals read from the EHR, exam findings
    nobody voiced) is genuinely unsupported by the dialogue; the sample printed with --sample is
    for checking by hand which flags are real and which are detector errors;
  * the same ACI-Bench notes against another visit's dialogue (note i with the dialogue of note
    i + 1): nearly everything should be unsupported, so this shows the detector is not simply
    lenient.

Usage:
  scripts/eval_claims.py [--extension build/scribe] [--aci ../shared/data/conversations/aci-bench]
                         [--sample 40] [--seed 7] [--by-class] [--corpus-only]

The claims are computed by the extension itself, through the stock sqlite3 shell:
  SELECT ... FROM notes, scribe_claims(notes.note, notes.encounter)
so the numbers are the grader's, not a re-implementation. Deterministic for a given build.
"""
import argparse
import collections
import csv
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACI_SPLITS = ["train", "valid", "clinicalnlp_taskB_test1", "clinicalnlp_taskC_test2", "clef_taskC_test3"]


def load_yaml_encounter(path):
    """encounter_text of a trial file (a literal block scalar), without a YAML dependency."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, inside = [], False
    for line in lines:
        if not inside:
            if re.match(r"^encounter_text:\s*\|", line):
                inside = True
            continue
        if line.startswith("  ") or line == "":
            out.append(line[2:])
        else:
            break
    return "\n".join(out).rstrip("\n") + "\n"


def corpus_rows():
    rows = []
    scripts = os.path.join(ROOT, "corpus", "scripts")
    for name in sorted(os.listdir(scripts)):
        if not name.endswith(".yaml"):
            continue
        trial = name[:-5]
        with open(os.path.join(scripts, name), encoding="utf-8") as f:
            if re.search(r"^kind:\s*fhir_", f.read(), re.M):
                continue  # structured-data trials: the answer is JSON, not a note with claims
        encounter = load_yaml_encounter(os.path.join(scripts, name))
        ref = os.path.join(ROOT, "tests", "fixtures", "notes", trial, "reference.txt")
        if os.path.exists(ref):
            rows.append(("corpus", trial + "/reference.txt", open(ref, encoding="utf-8").read(), encounter))
        para_dir = os.path.join(ROOT, "tests", "fixtures", "claims", trial)
        if os.path.isdir(para_dir):
            for p in sorted(os.listdir(para_dir)):
                if p.endswith(".txt"):
                    rows.append(("paraphrase", trial + "/" + p, open(os.path.join(para_dir, p), encoding="utf-8").read(),
                                 encounter))
    return rows


def aci_rows(aci_dir):
    rows = []
    for split in ACI_SPLITS:
        path = os.path.join(aci_dir, split + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                rows.append(("aci:" + split, r["encounter_id"], r["note"], r["dialogue"]))
    return rows


def run_claims(extension, rows):
    """All claims of all rows, through the extension, as dicts."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "eval.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, source TEXT, name TEXT, note TEXT, encounter TEXT)")
        con.executemany("INSERT INTO notes(source, name, note, encounter) VALUES (?, ?, ?, ?)", rows)
        con.commit()
        con.close()
        sql = ("SELECT n.id, c.class, c.subject, c.mention, c.value, c.severity, c.assertion, c.supported, c.reason, "
               "c.evidence FROM notes n, scribe_claims(n.note, n.encounter) c ORDER BY n.id, c.start_offset")
        env = dict(os.environ, SCRIBE_OFFLINE="1")
        out = subprocess.run(["sqlite3", db, "-cmd", ".load " + extension, "-json", sql], capture_output=True,
                             text=True, env=env, check=True).stdout
        return json.loads(out) if out.strip() else []


def sentence_of(note, mention):
    i = note.find(mention)
    if i < 0:
        return mention
    b = max(note.rfind("\n", 0, i) + 1, 0)
    e = note.find("\n", i)
    return note[b:e if e >= 0 else len(note)].strip()[:220]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--extension", default=os.path.join(ROOT, "build", "scribe"))
    default_aci = next((d for d in (os.path.join(ROOT, up, "shared", "data", "conversations", "aci-bench")
                                    for up in ("..", os.path.join("..", ".."))) if os.path.isdir(d)),
                       os.path.join(ROOT, "..", "shared", "data", "conversations", "aci-bench"))
    ap.add_argument("--aci", default=default_aci)
    ap.add_argument("--sample", type=int, default=0, help="print this many unsupported ACI-Bench claims")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--by-class", action="store_true", help="break ACI-Bench counts down by class")
    ap.add_argument("--corpus-only", action="store_true")
    args = ap.parse_args()

    rows = corpus_rows()
    if not args.corpus_only:
        if os.path.isdir(args.aci):
            aci = aci_rows(args.aci)
            rows += aci
            # the same notes against the next visit's dialogue
            rows += [("swap:" + src, name, note, aci[(k + 1) % len(aci)][3]) for k, (src, name, note, _) in enumerate(aci)]
        else:
            print("ACI-Bench not found at %s: corpus only" % args.aci, file=sys.stderr)
    claims = run_claims(args.extension, rows)
    by_note = collections.defaultdict(list)
    for c in claims:
        by_note[c["id"]].append(c)

    # corpus: every unsupported claim is listed (the expectation is none)
    failures = 0
    print("Corpus reference and paraphrase notes (expected: 0 unsupported)")
    for i, (source, name, note, _) in enumerate(rows, start=1):
        if not source in ("corpus", "paraphrase"):
            continue
        cs = by_note.get(i, [])
        bad = [c for c in cs if c["supported"] == 0]
        failures += len(bad)
        print("  %-62s claims %2d  unsupported %d" % (source + " " + name, len(cs), len(bad)))
        for c in bad:
            print("      %s/%s %r: %s" % (c["class"], c["subject"], c["mention"], c["reason"]))

    aci = [(i, r) for i, r in enumerate(rows, start=1) if r[0].startswith("aci:")]
    swapped = [(i, r) for i, r in enumerate(rows, start=1) if r[0].startswith("swap:")]
    if aci:
        total_claims = sum(len(by_note.get(i, [])) for i, _ in aci)
        unsupported = [c for i, _ in aci for c in by_note.get(i, []) if c["supported"] == 0]
        flagged_notes = sum(1 for i, _ in aci if any(c["supported"] == 0 for c in by_note.get(i, [])))
        per_note = sorted(sum(1 for c in by_note.get(i, []) if c["supported"] == 0) for i, _ in aci)
        n = len(aci)
        print()
        print("ACI-Bench reference notes vs dialogues (CC-BY-4.0, Yim et al. 2023): %d notes" % n)
        print("  claims: %d (%.2f per note)" % (total_claims, total_claims / n))
        print("  unsupported: %d (%.2f per note); notes with any: %d (%.0f %%); median per note %d, max %d" %
              (len(unsupported), len(unsupported) / n, flagged_notes, 100.0 * flagged_notes / n, per_note[n // 2],
               per_note[-1]))
        if args.by_class:
            cls_all = collections.Counter(c["class"] for i, _ in aci for c in by_note.get(i, []))
            cls_bad = collections.Counter(c["class"] for c in unsupported)
            for k in sorted(cls_all):
                print("    %-13s claims %5d  unsupported %4d (%.0f %%)" %
                      (k, cls_all[k], cls_bad[k], 100.0 * cls_bad[k] / cls_all[k]))
            subj = collections.Counter((c["class"], c["subject"]) for c in unsupported)
            print("  most frequent unsupported subjects:")
            for (k, s), v in subj.most_common(15):
                print("    %-13s %-28s %d" % (k, s, v))
        if swapped:
            s_claims = [c for i, _ in swapped for c in by_note.get(i, [])]
            s_bad = [c for c in s_claims if c["supported"] == 0]
            print("  against another visit's dialogue: %d claims, %d unsupported (%.0f %%, %.2f per note)" %
                  (len(s_claims), len(s_bad), 100.0 * len(s_bad) / max(1, len(s_claims)), len(s_bad) / len(swapped)))
            if args.by_class:
                cls_all = collections.Counter(c["class"] for c in s_claims)
                cls_bad = collections.Counter(c["class"] for c in s_bad)
                for k in sorted(cls_all):
                    print("    %-13s claims %5d  unsupported %4d (%.0f %%)" %
                          (k, cls_all[k], cls_bad[k], 100.0 * cls_bad[k] / cls_all[k]))
        if args.sample:
            rnd = random.Random(args.seed)
            sample = rnd.sample(unsupported, min(args.sample, len(unsupported)))
            notes = {i: r for i, r in aci}
            print()
            print("Sample of %d unsupported claims (seed %d), for checking by hand:" % (len(sample), args.seed))
            for k, c in enumerate(sample, start=1):
                src = notes[c["id"]]
                print("%2d. [%s %s] %s/%s %r" % (k, src[0][4:], src[1], c["class"], c["subject"], c["mention"]))
                print("    note: %s" % sentence_of(src[2], c["mention"]))
                print("    why:  %s%s" % (c["reason"], (" | " + c["evidence"][:160]) if c["evidence"] else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
