#!/usr/bin/env python3
"""Deterministic candidate rows for the assertion evaluation (tests/fixtures/assertion/).

Reads the CC-BY-4.0 reference notes in ../shared/data/conversations (ACI-Bench visit notes,
MTS-Dialog note sections, PriMock57 consultation notes), splits them into sentences, finds the
terms of tests/fixtures/assertion/findings.txt, and writes tests/fixtures/assertion/candidates.tsv:

    id  split  source  sentence  start  end  finding

`start`/`end` are code-point offsets of the finding in the sentence (end exclusive). `split` is
`dev` or `test`, by a hash of the source document, so no document straddles the two. Rows are
chosen by hash order within strata (sentences with a negation, history, hypothetical or family
word near the finding, and sentences with none), so the selection is reproducible and does not
depend on any grader output. The labels are a separate, hand-written file (labels.tsv).

    scripts/select_assertion_candidates.py [--data ../shared/data/conversations] [--out FILE]
"""
import argparse
import csv
import glob
import hashlib
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "assertion")

# Rows per stratum and split (dev, test). Strata are decided by words within 60 characters of
# the finding; a sentence may carry cues of several strata and is put in the first that applies.
QUOTAS = {"family": 25, "hypothetical": 30, "historical": 35, "negation": 80, "plain": 90}
STRATA = [
    ("family", r"\b(mother|father|mom|dad|brother|sister|sibling|family|aunt|uncle|grand\w*|son|daughter|"
               r"children|child|cousin|parents?|maternal|paternal|fh|fhx)\b"),
    ("hypothetical", r"(\bif\b|\bpossibl[ey]\b|\blikely\b|\bprobabl[ey]\b|\bsuspect|\brule out\b|\br/o\b|"
                     r"\bconcern|\brisk\b|\bprevent|\bmay\b|\bmight\b|\bcould\b|\bconsider|\?|\bmonitor|"
                     r"\bwatch for\b|\bshould\b|\bpending\b|\bworried\b|\bexclude\b|\bquery\b)"),
    ("historical", r"(\bhistory\b|\bhx\b|\bprevious|\bprior\b|\bformer|\bquit\b|\bex-|\bpast\b|\bago\b|"
                   r"\bused to\b|\bno longer\b|\bs/p\b|\bstatus post\b|\bas a child\b|\bremission\b|\bpmh\b)"),
    ("negation", r"(\bno\b|\bnot\b|\bden(y|ies|ied)\b|\bnegative\b|\bwithout\b|\bnever\b|\bnone\b|\bnil\b|"
                 r"\babsent\b|\bfree\b|\bruled out\b|\bresolved\b|-ve\b|\bneg\b|\bunremarkable\b|\bnkda\b|"
                 r"\bnon\b|n't\b|\bnor\b)"),
]
MAX_PER_DOCUMENT = 3
MAX_SENTENCE_CHARS = 320


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_terms(path):
    terms = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                terms.append(line)
    terms.sort(key=lambda t: (-len(t), t))
    parts = []
    for t in terms:
        body = r"\s+".join(re.escape(w) for w in t.split())
        exact_case = len(t) <= 4 and t.isupper()
        parts.append((body, exact_case))
    # one alternation per case mode, longest terms first
    ci = "|".join(b for b, exact in parts if not exact)
    cs = "|".join(b for b, exact in parts if exact)
    return (re.compile(r"(?<![\w-])(?:" + ci + r")(?:e?s)?(?![\w-])", re.IGNORECASE),
            re.compile(r"(?<![\w-])(?:" + cs + r")s?(?![\w-])"))


def documents(data):
    """(source, document id, text) for every note, in a fixed order."""
    csv.field_size_limit(1 << 30)
    for path in sorted(glob.glob(os.path.join(data, "aci-bench", "*.csv"))):
        if path.endswith("_metadata.csv"):
            continue
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                yield "aci-bench", f"{os.path.basename(path)}:{row['encounter_id']}", row["note"]
    for path in sorted(glob.glob(os.path.join(data, "mts-dialog", "MTS-Dialog-*.csv"))):
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                yield "mts-dialog", f"{os.path.basename(path)}:{row['ID']}", row["section_text"]
    for path in sorted(glob.glob(os.path.join(data, "primock57", "notes", "*.json"))):
        with open(path, encoding="utf-8") as f:
            yield "primock57", os.path.basename(path), json.load(f)["note"]


def sentences(text):
    """Lines, then sentences within a line (". ", "! ", "? " before a capital or a digit)."""
    for line in text.replace("\r", "").split("\n"):
        line = re.sub(r"[\t ]+", " ", line).strip(" •*-")
        if not line:
            continue
        start = 0
        for m in re.finditer(r"[.!?]\s+(?=[A-Z0-9])", line):
            piece = line[start:m.end()].strip()
            if piece:
                yield piece
            start = m.end()
        piece = line[start:].strip()
        if piece:
            yield piece


def stratum(sentence, start, end):
    window = sentence[max(0, start - 60):end + 60].lower()
    for name, pattern in STRATA:
        if re.search(pattern, window):
            return name
    return "plain"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(REPO, "..", "..", "shared", "data", "conversations"))
    ap.add_argument("--out", default=os.path.join(FIXTURES, "candidates.tsv"))
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        args.data = "/work/shared/data/conversations"
    ci, cs = load_terms(os.path.join(FIXTURES, "findings.txt"))

    pool = {}  # (split, stratum) -> [(hash, row)]
    for source, doc, text in documents(args.data):
        split = "test" if int(sha("split:" + source + ":" + doc), 16) % 2 else "dev"
        for si, sentence in enumerate(sentences(text)):
            if len(sentence) > MAX_SENTENCE_CHARS or len(sentence) < 8:
                continue
            spans = sorted({(m.start(), m.end()) for rx in (ci, cs) for m in rx.finditer(sentence)})
            kept, last_end = [], -1
            for s, e in sorted(spans, key=lambda x: (x[0], -x[1])):
                if s >= last_end:
                    kept.append((s, e))
                    last_end = e
            for s, e in kept:
                row = {"id": f"{source}:{doc}:{si}:{s}", "split": split, "source": source, "doc": doc,
                       "sentence": sentence, "start": s, "end": e, "finding": sentence[s:e]}
                pool.setdefault((split, stratum(sentence, s, e)), []).append((sha("pick:" + row["id"]), row))

    chosen = []
    for split in ("dev", "test"):
        per_doc, per_sentence = {}, {}
        for name, quota in QUOTAS.items():
            taken = 0
            for _, row in sorted(pool.get((split, name), []), key=lambda x: x[0]):
                if taken >= quota:
                    break
                key = (row["doc"], row["sentence"])
                if per_doc.get(row["doc"], 0) >= MAX_PER_DOCUMENT or per_sentence.get(key, 0) >= 1:
                    continue
                per_doc[row["doc"]] = per_doc.get(row["doc"], 0) + 1
                per_sentence[key] = 1
                chosen.append(row)
                taken += 1
    chosen.sort(key=lambda r: (r["split"], r["id"]))
    with open(args.out, "w", encoding="utf-8", newline="") as f:
        f.write("id\tsplit\tsource\tsentence\tstart\tend\tfinding\n")
        for r in chosen:
            f.write("\t".join([r["id"], r["split"], r["source"], r["sentence"], str(r["start"]), str(r["end"]),
                               r["finding"]]) + "\n")
    print(f"{len(chosen)} candidates -> {os.path.relpath(args.out, REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
