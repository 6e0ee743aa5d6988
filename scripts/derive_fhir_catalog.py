#!/usr/bin/env python3
# derive_fhir_catalog.py -- the fhir_write site catalog of RxNorm drugs, corpus/fhir/rxnorm_catalog.tsv.
#
# Usage:   python3 scripts/derive_fhir_catalog.py [DATA_DIR]
#          DATA_DIR defaults to <repo>/../shared/data.  Python 3 standard library only.
#          Deterministic: rows sorted by code, LF line endings, no timestamps.
#
# The catalog is what an agent looks codes up in instead of guessing them, and what the
# scorer reads strengths from.  It holds RxNorm clinical drugs (SCD), branded drugs (SBD)
# and branded packs (BPCK):
#   * every code the fixtures and the cases use: the 30 codes of the groundeval
#     terminology, every MedicationRequest / Medication code of corpus/scripts/fhir/bundles/, and
#     every expected code of corpus/scripts/fhir/write_cases/ (the script fails if one is missing);
#   * every product all of whose ingredients are among the ingredients of those bundle and
#     case codes ("every product of the ingredients the cases and bundles use"), so the
#     agent has to choose among real neighbours (25 vs 100 MG, SCD vs SBD, tablet vs
#     solution) rather than find the only entry.
#
# Inputs (paths relative to DATA_DIR; their SHA-256 go to rxnorm_catalog.VERSION):
#   rxnorm/rxnorm_prescribe_2025/rxnorm_concepts.tsv  NLM RxNorm Current Prescribable
#       Content 2025-10-06 (flattened).  Its ingredients whose name starts with "A" are
#       missing (data/SOURCES.md section 1): for those
#   rxnorm/rxterms_2013/RxTerms201307.txt  NLM RxTerms 2013-07 supplies the products that
#       contain an "A" ingredient (rows not retired), and
#   rxnorm/a_ingredients_supplement.tsv  the RxNorm IN names of the "A" ingredients.
#   groundeval/terminology/rxnorm_medications.json  healthchainai/groundeval (Apache-2.0).
#   groundeval/write_cases/medication_statements.json  the seven cases transcribed into
#       corpus/scripts/fhir/write_cases/; the script checks the transcription.
#
# Display precedence (a code has one display): groundeval (the name Synthea writes and the
# transcribed cases expect) > RxNorm 2025 > the Synthea fixtures > RxTerms 2013.
#
# Columns: code, tty, display, ingredients (RxNorm IN names, lower case, '|'-joined,
# sorted), strength (per ingredient in name order, '|'-joined: "0.044 MG/ACTUAT"),
# dose_form ("Metered Dose Inhaler"), brand (SBD/BPCK), source (of the display).
import glob
import hashlib
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.normpath(
    os.path.join(REPO, "..", "shared", "data"))
OUT_DIR = os.path.join(REPO, "corpus", "fhir")
# The trials' own inputs (bundles, write cases) live beside the trials that reference them.
TRIAL_DATA_DIR = os.path.join(REPO, "corpus", "scripts", "fhir")
RXNORM_SYSTEM = "http://www.nlm.nih.gov/research/umls/rxnorm"
PRODUCT_TTYS = ("SCD", "SBD", "BPCK")

INPUTS = {
    "rxnorm_2025": "rxnorm/rxnorm_prescribe_2025/rxnorm_concepts.tsv",
    "rxterms_2013": "rxnorm/rxterms_2013/RxTerms201307.txt",
    "a_ingredients": "rxnorm/a_ingredients_supplement.tsv",
    "groundeval_terminology": "groundeval/terminology/rxnorm_medications.json",
    "groundeval_cases": "groundeval/write_cases/medication_statements.json",
}

# A leading quantity or device qualifier of an RxNorm name ("120 ACTUAT", "3 ML",
# "72 HR", "NDA020800 0.3 ML", "Sensor 3 ML", "Abuse-Deterrent 12 HR"), then components "<ingredient> <value> <UNIT>".
QUALIFIER = re.compile(r"^(?:(?:NDA|BLA|ANDA)\d+ )?(?:(?:Sensor|Abuse-Deterrent|Modified|Matrix Delivery|Osmotic) )*(?:\d+(?:\.\d+)? (?:HR|ACTUAT|ML|DAY|MG|UNT) )?")
COMPONENT = re.compile(r"^(?P<name>.+?) (?P<strength>\d+(?:\.\d+)? [A-Z]+(?:/[A-Z]+)?)(?: (?P<rest>.+))?$")
BRAND = re.compile(r"^(?P<base>.*) \[(?P<brand>[^\]]+)\]$")


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]


class Names:
    """RxNorm IN names, for mapping a written component ("metoprolol succinate") to its IN."""

    def __init__(self, names):
        self.names = sorted(set(n.lower() for n in names), key=lambda n: (-len(n), n))

    def ingredient(self, written):
        w = written.lower()
        for n in self.names:
            if w == n or w.startswith(n + " "):
                return n
        return None


def parse_drug(name, names):
    """(ingredients, strengths, dose_form, brand) of an SCD/SBD name; BPCK names give the union
    of their drugs' ingredients and no strength or dose form.  None when a part is unknown."""
    brand = ""
    m = BRAND.match(name)
    if m:
        name, brand = m.group("base"), m.group("brand")
    if name.startswith("{"):
        inner = re.findall(r"\d+ \((.+?)\)(?= /| \})", name)
        ingredients = set()
        for drug in inner:
            parsed = parse_drug(drug, names)
            if parsed is None:
                return None
            ingredients.update(parsed[0])
        ingredients.discard("inert ingredients")
        return sorted(ingredients), [], "Pack", brand
    body = QUALIFIER.sub("", name, count=1)
    ingredients, strengths, dose_form = [], [], ""
    parts = body.split(" / ")
    for i, part in enumerate(parts):
        m = COMPONENT.match(part)
        if not m:
            return None
        ingredient = names.ingredient(m.group("name"))
        if ingredient is None:
            return None
        ingredients.append(ingredient)
        strengths.append(m.group("strength"))
        if i == len(parts) - 1:
            dose_form = m.group("rest") or ""
        elif m.group("rest"):
            return None
    if not dose_form:
        return None
    return sorted(set(ingredients)), strengths, dose_form, brand


def fixture_codes():
    codes = {}
    for path in sorted(glob.glob(os.path.join(TRIAL_DATA_DIR, "bundles", "*.json"))):
        with open(path, encoding="utf-8") as f:
            bundle = json.load(f)
        for entry in bundle["entry"]:
            resources = [entry["resource"]] + entry["resource"].get("contained", [])
            for r in resources:
                concept = r.get("medicationCodeableConcept") or (r.get("code") if r["resourceType"] == "Medication" else None)
                for c in (concept or {}).get("coding", []):
                    if c.get("system") == RXNORM_SYSTEM:
                        codes.setdefault(c["code"], c["display"])
    return codes


def case_codes():
    cases = {}
    for path in sorted(glob.glob(os.path.join(TRIAL_DATA_DIR, "write_cases", "*.json"))):
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        cases[case["case_id"]] = case
    return cases


def check_transcription(cases, source_path):
    """The groundeval cases in write_cases/ equal the source except the documented ceiling."""
    with open(source_path, encoding="utf-8") as f:
        source = json.load(f)["cases"]
    for c in source:
        mine = cases.get(c["case_id"])
        if mine is None or mine["source"] != "groundeval":
            sys.exit("write_cases: groundeval case %s is missing" % c["case_id"])
        for key in ("subject", "input"):
            if mine[key] != c[key]:
                sys.exit("write_cases/%s.json: %s differs from groundeval" % (c["case_id"], key))
        for key, value in c["expected"].items():
            if mine["expected"][key] != value and not (key == "max_daily_dose" and "notes" in mine):
                sys.exit("write_cases/%s.json: expected.%s differs from groundeval" % (c["case_id"], key))
    return len(source)


def main():
    paths = {k: os.path.join(DATA, v) for k, v in INPUTS.items()}
    concepts = read_tsv(paths["rxnorm_2025"])
    in_names = [r["STR"] for r in concepts if r["TTY"] == "IN"]
    a_names = [r["STR"] for r in read_tsv(paths["a_ingredients"])]
    names = Names(in_names + a_names)
    a_set = set(n.lower() for n in a_names)

    rows = {}  # code -> row dict

    def add(code, tty, display, source):
        if code in rows:
            return rows[code]
        parsed = parse_drug(display, names)
        if parsed is None:
            return None
        ingredients, strengths, dose_form, brand = parsed
        rows[code] = {"code": code, "tty": tty, "display": display, "ingredients": "|".join(ingredients),
                      "strength": "|".join(strengths), "dose_form": dose_form, "brand": brand, "source": source}
        return rows[code]

    rx2025 = {r["RXCUI"]: r for r in concepts if r["TTY"] in PRODUCT_TTYS}
    rxterms = {}
    with open(paths["rxterms_2013"], encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("|")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("|")))
            if r["TTY"] in PRODUCT_TTYS and not r.get("IS_RETIRED"):
                rxterms[r["RXCUI"]] = r

    def tty_of(code, default):
        if code in rx2025:
            return rx2025[code]["TTY"]
        if code in rxterms:
            return rxterms[code]["TTY"]
        return default

    # 1. The groundeval terminology, the fixtures' codes, the cases' codes.
    with open(paths["groundeval_terminology"], encoding="utf-8") as f:
        groundeval = json.load(f)
    for c in groundeval:
        if add(c["code"], tty_of(c["code"], "SCD"), c["display"], "groundeval") is None:
            sys.exit("groundeval code %s: cannot parse %r" % (c["code"], c["display"]))
    fixtures = fixture_codes()
    cases = case_codes()
    seed_ingredients = set()
    for code, display in sorted(fixtures.items()):
        if code in rx2025:
            row = add(code, rx2025[code]["TTY"], rx2025[code]["STR"], "rxnorm-2025")
        else:
            row = add(code, tty_of(code, "SCD"), display, "synthea")
        if row is None:
            sys.exit("fixture code %s: cannot parse %r" % (code, display))
        seed_ingredients.update(row["ingredients"].split("|"))
    for case in cases.values():
        code = case["expected"]["rxnorm_code"]
        row = rows.get(code)
        if row is None and code in rx2025:
            row = add(code, rx2025[code]["TTY"], rx2025[code]["STR"], "rxnorm-2025")
        if row is None and code in rxterms:
            row = add(code, rxterms[code]["TTY"], rxterms[code]["FULL_NAME"], "rxterms-2013")
        if row is None:
            sys.exit("case %s: code %s is in no source" % (case["case_id"], code))
        if row["display"] != case["expected"]["display"]:
            sys.exit("case %s: display %r, catalog has %r" % (case["case_id"], case["expected"]["display"], row["display"]))
        seed_ingredients.update(row["ingredients"].split("|"))

    # 2. Every product made only of those ingredients: RxNorm 2025, then RxTerms 2013 for the
    #    products with an "A" ingredient (absent from the 2025 copy).
    unparsed = 0
    for code in sorted(rx2025, key=int):
        parsed = parse_drug(rx2025[code]["STR"], names)
        if parsed is None:
            unparsed += 1
        elif parsed[0] and set(parsed[0]) <= seed_ingredients:
            add(code, rx2025[code]["TTY"], rx2025[code]["STR"], "rxnorm-2025")
    for code in sorted(rxterms, key=int):
        if code in rx2025:
            continue
        parsed = parse_drug(rxterms[code]["FULL_NAME"], names)
        if parsed and parsed[0] and set(parsed[0]) <= seed_ingredients and set(parsed[0]) & a_set:
            add(code, rxterms[code]["TTY"], rxterms[code]["FULL_NAME"], "rxterms-2013")

    transcribed = check_transcription(cases, paths["groundeval_cases"])

    out = os.path.join(OUT_DIR, "rxnorm_catalog.tsv")
    columns = ("code", "tty", "display", "ingredients", "strength", "dose_form", "brand", "source")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(columns) + "\n")
        for code in sorted(rows, key=int):
            f.write("\t".join(rows[code][c] for c in columns) + "\n")
    counts = {}
    for r in rows.values():
        counts[r["source"]] = counts.get(r["source"], 0) + 1
        counts[r["tty"]] = counts.get(r["tty"], 0) + 1
    with open(os.path.join(OUT_DIR, "rxnorm_catalog.VERSION"), "w", encoding="utf-8", newline="\n") as f:
        f.write("rows=%d\n" % len(rows))
        for k in sorted(counts):
            f.write("rows_%s=%d\n" % (k.replace("-", "_"), counts[k]))
        f.write("ingredients=%s\n" % "|".join(sorted(seed_ingredients)))
        f.write("groundeval_cases_checked=%d\n" % transcribed)
        for k in sorted(INPUTS):
            f.write("sha256_%s=%s  %s\n" % (k, sha256_file(paths[k]), INPUTS[k]))
    print("%d rows (%s); %d ingredients; %d RxNorm 2025 products not parseable (skipped)" % (
        len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(seed_ingredients), unparsed))


if __name__ == "__main__":
    main()
