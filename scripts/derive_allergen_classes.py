#!/usr/bin/env python3
# derive_allergen_classes.py -- resolve the member ingredients of the allergen classes.
#
# Usage:   python3 scripts/derive_allergen_classes.py [--check]
#
# Reads corpus/rules/allergen_classes.yaml (hand-written: class names, USAN/INN stems, explicit
# members and exclusions) and the offline RxNorm ingredients of corpus/terminology/concepts.tsv
# (tty IN; derived from NLM RxNorm by scripts/derive_terminology.py), and writes
# corpus/rules/allergen_class_members.tsv: one row per class member,
#
#     class <TAB> ingredient_rxcui <TAB> ingredient name <TAB> how (stem pattern or "listed")
#
# sorted by class, then name. Fails when an explicit member or exclusion is not an IN of the
# terminology, when a class ends up without members, or (with --check) when the committed file
# differs from what the script would write. Deterministic; stdlib + PyYAML (python3-yaml).
#
# RxNorm: "This product uses publicly available data courtesy of the U.S. National Library of
# Medicine (NLM), National Institutes of Health, Department of Health and Human Services; NLM is
# not responsible for the product and does not endorse or recommend this or any other product."

import fnmatch
import os
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLASSES = os.path.join(REPO, "corpus", "rules", "allergen_classes.yaml")
CONCEPTS = os.path.join(REPO, "corpus", "terminology", "concepts.tsv")
OUT = os.path.join(REPO, "corpus", "rules", "allergen_class_members.tsv")

HEADER = ("# Member ingredients of the allergen classes of corpus/rules/allergen_classes.yaml, resolved\n"
          "# against the offline RxNorm ingredients by scripts/derive_allergen_classes.py (do not edit).\n"
          "class\tingredient_rxcui\tingredient\thow\n")


def die(msg):
    sys.stderr.write("derive_allergen_classes: ERROR: " + msg + "\n")
    sys.exit(1)


def ingredients():
    """name (lower case) -> (rxcui, name) for every IN row."""
    out = {}
    with open(CONCEPTS, encoding="utf-8") as f:
        next(f)
        for line in f:
            rxcui, tty, name = line.rstrip("\n").split("\t")[:3]
            if tty == "IN" and rxcui:
                out[name.lower()] = (rxcui, name)
    return out


def derive():
    with open(CLASSES, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    ins = ingredients()
    rows = []
    for cls in sorted(spec["classes"]):
        c = spec["classes"][cls]
        members = {}
        for pattern in c.get("stems", []) or []:
            for lower, (rxcui, name) in ins.items():
                if fnmatch.fnmatchcase(lower, pattern.lower()):
                    members.setdefault(lower, (rxcui, name, "stem " + pattern))
        for m in c.get("members", []) or []:
            if m.lower() not in ins:
                die(f"{cls}: member '{m}' is not an ingredient (IN) of concepts.tsv")
            rxcui, name = ins[m.lower()]
            members[m.lower()] = (rxcui, name, "listed")
        for x in c.get("exclude", []) or []:
            if x.lower() not in ins:
                die(f"{cls}: exclusion '{x}' is not an ingredient (IN) of concepts.tsv")
            members.pop(x.lower(), None)
        if c.get("prescribed_as") and c["prescribed_as"].lower() not in members:
            die(f"{cls}: prescribed_as '{c['prescribed_as']}' is not a member")
        if not members:
            die(f"{cls}: no members")
        for lower in sorted(members):
            rxcui, name, how = members[lower]
            rows.append(f"{cls}\t{rxcui}\t{name}\t{how}\n")
    return HEADER + "".join(rows)


def main():
    text = derive()
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                die(f"{os.path.relpath(OUT, REPO)} is stale: run scripts/derive_allergen_classes.py")
        return
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    sys.stderr.write(f"derive_allergen_classes: wrote {text.count(chr(10)) - 3} members to "
                     f"{os.path.relpath(OUT, REPO)}\n")


if __name__ == "__main__":
    main()
