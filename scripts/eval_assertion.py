#!/usr/bin/env python3
"""Assertion evaluation: the grader (scribe_find through the built module) and a NegEx baseline
(Chapman et al. 2001) on the hand-labelled findings of tests/fixtures/assertion/.

    scripts/eval_assertion.py [--module build/scribe.so] [--split dev|test|all] [--check FILE] [--errors]

For each split it prints, for both systems: accuracy over the five labels (affirmed, negated,
historical, hypothetical, family), binary accuracy (negated vs not negated: the only distinction
NegEx makes), negation precision / recall / F1, and the confusion matrix (rows = label, columns =
prediction). --check FILE compares the printed figures with a committed copy and fails on any
difference (tests/CMakeLists.txt runs it as `assertion/eval`). --errors lists the rows a system
gets wrong (use it on dev only: the test split is for the final figures, not for tuning).

NegEx here is written from the paper's description, not copied from any implementation:
pre-negation phrases negate an indexed term that starts within five words after them,
post-negation phrases one that ends within five words before them, pseudo-negation phrases
("no change", "gram negative") are skipped, and the scope never leaves the sentence. It says
only negated or affirmed. Its phrase lists below are this project's, written from the classes the
paper describes.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "assertion")
LABELS = ["affirmed", "negated", "historical", "hypothetical", "family"]

# ---------------------------------------------------------------- NegEx (Chapman et al. 2001)

NEGEX_PRE = [
    "no", "not", "denies", "denied", "deny", "denying", "without", "never", "none", "nor", "neither",
    "no evidence of", "no evidence", "no sign of", "no signs of", "no symptoms of", "no complaints of",
    "negative for", "absence of", "free of", "rules out", "ruled out", "no history of", "unremarkable for",
    "not demonstrate", "not demonstrated", "fails to reveal", "failed to reveal", "no suspicious",
    "no findings of", "doesn't", "didn't", "does not", "did not", "without any", "no new",
]
NEGEX_POST = [
    "declined", "unlikely", "free", "was ruled out", "is ruled out", "are ruled out", "have been ruled out",
    "has been ruled out", "was negative", "is negative", "negative", "not seen", "absent", "not present",
]
NEGEX_PSEUDO = [
    "no increase", "no change", "no significant change", "no suspicious change", "no interval change",
    "no definite change", "not extend", "not cause", "not caused", "not drain", "gram negative",
    "without difficulty", "not only", "not necessarily", "not certain if", "not certain whether",
    "whether or not", "not rule out", "no further",
]
NEGEX_WINDOW = 5


def words(text):
    """Word tokens with their character spans (letters, digits, apostrophes)."""
    return [(m.group(0).lower(), m.start(), m.end()) for m in re.finditer(r"[A-Za-z0-9']+", text)]


def negex(sentence, start, end):
    toks = words(sentence)
    term = [i for i, (_, s, e) in enumerate(toks) if s < end and e > start]
    if not term:
        return "affirmed"
    t0, t1 = term[0], term[-1]
    phrases = sorted({(tuple(p.split()), kind) for kind, lst in (("pseudo", NEGEX_PSEUDO), ("pre", NEGEX_PRE),
                                                                 ("post", NEGEX_POST)) for p in lst},
                     key=lambda x: (-len(x[0]), {"pseudo": 0, "pre": 1, "post": 2}[x[1]]))
    i = 0
    while i < len(toks):
        for words_, kind in phrases:
            n = len(words_)
            if tuple(w for w, _, _ in toks[i:i + n]) != words_:
                continue
            # a trigger inside the term is part of the term, not a cue
            if not (i + n <= t0 or i > t1):
                break
            if kind == "pre" and i + n <= t0 and t0 - (i + n) <= NEGEX_WINDOW:
                return "negated"
            if kind == "post" and i > t1 and i - t1 - 1 <= NEGEX_WINDOW:
                return "negated"
            i += n - 1
            break
        i += 1
    return "affirmed"


# ---------------------------------------------------------------- the grader, through SQL


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def grader(rows, module):
    """The assertion scribe_find gives each row's finding (the match starting at its offset)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False, encoding="utf-8") as f:
        f.write(f".load {module}\n")
        f.write("CREATE TEMP TABLE r(id TEXT, sentence TEXT, finding TEXT);\n")
        for r in rows:
            f.write(f"INSERT INTO r VALUES ({sql_literal(r['id'])}, {sql_literal(r['sentence'])}, "
                    f"{sql_literal(r['finding'])});\n")
        f.write(".mode tabs\n")
        f.write("SELECT r.id, f.start_offset, f.end_offset, f.assertion FROM r, scribe_find(r.sentence, r.finding) f;\n")
        path = f.name
    try:
        out = subprocess.run(["sqlite3", ":memory:", f".read {path}"], capture_output=True, text=True,
                             env=dict(os.environ, SCRIBE_OFFLINE="1"), check=True).stdout
    finally:
        os.unlink(path)
    found = {}
    for line in out.splitlines():
        rid, s, e, assertion = line.split("\t")
        found.setdefault(rid, []).append((int(s), int(e), assertion))
    result = {}
    for r in rows:
        s, e = int(r["start"]), int(r["end"])
        hits = found.get(r["id"], [])
        exact = [a for hs, he, a in hits if hs == s]
        overlap = [a for hs, he, a in hits if hs < e and he > s]
        result[r["id"]] = exact[0] if exact else overlap[0] if overlap else "affirmed"
    return result


# ---------------------------------------------------------------- figures


def figures(gold, predicted):
    n = len(gold)
    correct = sum(g == p for g, p in zip(gold, predicted))
    binary = sum((g == "negated") == (p == "negated") for g, p in zip(gold, predicted))
    tp = sum(g == "negated" and p == "negated" for g, p in zip(gold, predicted))
    fp = sum(g != "negated" and p == "negated" for g, p in zip(gold, predicted))
    fn = sum(g == "negated" and p != "negated" for g, p in zip(gold, predicted))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    matrix = {(g, p): 0 for g in LABELS for p in LABELS}
    for g, p in zip(gold, predicted):
        matrix[(g, p)] += 1
    return {"n": n, "accuracy": correct / n if n else 0.0, "binary": binary / n if n else 0.0,
            "precision": precision, "recall": recall, "f1": f1, "matrix": matrix}


def report(name, split, fig):
    lines = [f"{split} {name}: n={fig['n']} accuracy={fig['accuracy']:.4f} negation_binary_accuracy={fig['binary']:.4f} "
             f"negation_precision={fig['precision']:.4f} negation_recall={fig['recall']:.4f} negation_f1={fig['f1']:.4f}"]
    short = {"affirmed": "aff", "negated": "neg", "historical": "hist", "hypothetical": "hyp", "family": "fam"}
    lines.append(f"{split} {name}: label\\pred " + " ".join(f"{short[p]:>5}" for p in LABELS))
    for g in LABELS:
        lines.append(f"{split} {name}: {short[g]:>10} " + " ".join(f"{fig['matrix'][(g, p)]:>5}" for p in LABELS))
    return lines


def load_rows():
    with open(os.path.join(FIXTURES, "candidates.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    with open(os.path.join(FIXTURES, "labels.tsv"), encoding="utf-8", newline="") as f:
        labels = {r["id"]: r["label"] for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}
    missing = [r["id"] for r in rows if r["id"] not in labels]
    if missing:
        sys.exit(f"eval_assertion: {len(missing)} candidates have no label, first {missing[0]}")
    for r in rows:
        r["label"] = labels[r["id"]]
        if r["label"] not in LABELS + ["skip"]:
            sys.exit(f"eval_assertion: {r['id']}: unknown label {r['label']!r}")
    return [r for r in rows if r["label"] != "skip"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", default=os.path.join(REPO, "build", "scribe.so"))
    ap.add_argument("--split", choices=["dev", "test", "all"], default="all")
    ap.add_argument("--check", help="fail unless the figures equal this file")
    ap.add_argument("--errors", action="store_true", help="list the rows each system gets wrong")
    args = ap.parse_args()
    rows = load_rows()
    graded = grader(rows, args.module)
    splits = ["dev", "test"] if args.split == "all" else [args.split]
    lines = []
    for split in splits:
        part = [r for r in rows if r["split"] == split]
        gold = [r["label"] for r in part]
        systems = {"grader": [graded[r["id"]] for r in part],
                   "negex": [negex(r["sentence"], int(r["start"]), int(r["end"])) for r in part]}
        for name, predicted in systems.items():
            lines += report(name, split, figures(gold, predicted))
            if args.errors:
                for r, p in zip(part, predicted):
                    if p != r["label"]:
                        s, e = int(r["start"]), int(r["end"])
                        print(f"  {name} {r['label']}->{p}: {r['sentence'][:s]}[[{r['sentence'][s:e]}]]{r['sentence'][e:]}")
    print("\n".join(lines))
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            expected = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        if expected != lines:
            for a, b in zip(expected + [""] * len(lines), lines + [""] * len(expected)):
                if a != b:
                    print(f"eval_assertion: figures differ\n  expected: {a}\n  got:      {b}", file=sys.stderr)
                    break
            sys.exit(1)
        print("eval_assertion: figures match " + os.path.relpath(args.check, REPO))


if __name__ == "__main__":
    main()
