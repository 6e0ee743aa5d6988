#!/usr/bin/env python3
# derive_fhir_fixtures.py -- trim Synthea R4 bundles into the fhir_extract fixtures.
#
# Usage:   python3 scripts/derive_fhir_fixtures.py [DATA_DIR] [--out DIR]
#          DATA_DIR defaults to <repo>/../shared/data; --out defaults to corpus/scripts/fhir/bundles.
#          Python 3 standard library only.  Output is deterministic: same input, same bytes
#          (no timestamps, UUIDs derived with uuid5 from fixed names, LF line endings).
#
# Input: the ten Synthea v2.7.0 transaction bundles in
#   DATA_DIR/synthea/blaze_synthea_v2.7.0/*.json  (samply/blaze test data, Apache-2.0).
# The bundle synthea_master_2024/almeta_buckridge.json is deliberately not used: its
# repository states no licence.
#
# Output (one file per patient, named <given>_<family>.json in lower case):
#   a Bundle of type "collection" holding only the Patient, MedicationRequest, Medication,
#   Condition and AllergyIntolerance resources, in source order, each resource verbatim
#   except for the three stated transformations below; entry.request (a transaction
#   detail) is dropped and entry.fullUrl kept.  MANIFEST.tsv records, per fixture, the
#   source file, its SHA-256, the output SHA-256, the number of active medications and
#   the transformation applied.
#
# Transformations (also stated in corpus/fhir/README.md):
#   * ZERO_MEDICATION: every MedicationRequest of that patient gets status "stopped" (the
#     source has one active request, meperidine 50 mg, an acute-pain prescription), so the
#     set has a real patient with no active medication.
#   * SEPARATE_MEDICATION: each distinct medicationCodeableConcept of that patient becomes
#     a Medication resource (code = the original CodeableConcept, id = uuid5 of patient
#     and code) added to the bundle after the Patient, and each MedicationRequest refers
#     to it with medicationReference "urn:uuid:<id>".  None of the sources uses
#     medicationReference; this exercises resolving one.
#   * CONTAINED_MEDICATION: each MedicationRequest of that patient carries its medication
#     as a contained Medication (id "med") referenced as "#med".
import hashlib
import json
import os
import sys
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEEP = ("Patient", "MedicationRequest", "Medication", "Condition", "AllergyIntolerance")
SOURCE_DIR = os.path.join("synthea", "blaze_synthea_v2.7.0")
UUID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/scribe-trials/corpus/fhir")

# Source bundle (file name without .json) -> transformation, for the three that get one.
TRANSFORMS = {
    "7277a553-d195-6596-0124-b482d859691e": "ZERO_MEDICATION",
    "1ae8d602-4b41-4571-8c49-b460a22892c2": "SEPARATE_MEDICATION",
    "e2053282-a9da-7d0c-8683-481ae0b8c75c": "CONTAINED_MEDICATION",
}
EXPECTED_SOURCES = 10


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fixture_name(patient):
    name = patient["name"][0]
    return (name["given"][0] + "_" + name["family"]).lower() + ".json"


def to_zero_medication(entries):
    for e in entries:
        if e["resource"]["resourceType"] == "MedicationRequest":
            e["resource"]["status"] = "stopped"
    return entries


def medication_resource(med_id, concept):
    return {"resourceType": "Medication", "id": med_id, "code": concept}


def with_reference(request, reference):
    """The request with medicationCodeableConcept replaced, in place, by medicationReference."""
    out = {}
    for key, value in request.items():
        if key == "medicationCodeableConcept":
            out["medicationReference"] = {"reference": reference}
        else:
            out[key] = value
    return out


def to_separate_medication(entries, patient_id):
    medications = {}  # code key -> Medication entry, in first-seen order
    for e in entries:
        r = e["resource"]
        if r["resourceType"] != "MedicationRequest":
            continue
        concept = r["medicationCodeableConcept"]
        key = json.dumps(concept, sort_keys=True)
        if key not in medications:
            med_id = str(uuid.uuid5(UUID_NAMESPACE, patient_id + "/Medication/" + key))
            medications[key] = {"fullUrl": "urn:uuid:" + med_id, "resource": medication_resource(med_id, concept)}
        e["resource"] = with_reference(r, medications[key]["fullUrl"])
    return entries[:1] + list(medications.values()) + entries[1:]


def to_contained_medication(entries):
    for e in entries:
        r = e["resource"]
        if r["resourceType"] != "MedicationRequest":
            continue
        concept = r["medicationCodeableConcept"]
        out = {}
        for key, value in r.items():
            if key == "meta":
                out[key] = value
                out["contained"] = [medication_resource("med", concept)]
            elif key == "medicationCodeableConcept":
                out["medicationReference"] = {"reference": "#med"}
            else:
                out[key] = value
        e["resource"] = out
    return entries


def active_count(entries):
    codes = set()
    meds = {e["fullUrl"]: e["resource"] for e in entries if e["resource"]["resourceType"] == "Medication"}
    for e in entries:
        r = e["resource"]
        if r["resourceType"] != "MedicationRequest" or r["status"] != "active":
            continue
        if "medicationCodeableConcept" in r:
            concept = r["medicationCodeableConcept"]
        elif r["medicationReference"]["reference"].startswith("#"):
            concept = r["contained"][0]["code"]
        else:
            concept = meds[r["medicationReference"]["reference"]]["code"]
        codes.update(c["code"] for c in concept["coding"]
                     if c.get("system") == "http://www.nlm.nih.gov/research/umls/rxnorm")
    return len(codes)


def trim(path):
    """(fixture file name, bundle bytes, active medication count, transformation)."""
    with open(path, encoding="utf-8") as f:
        source = json.load(f)
    stem = os.path.basename(path)[:-len(".json")]
    entries = [{"fullUrl": e["fullUrl"], "resource": e["resource"]}
               for e in source["entry"] if e["resource"]["resourceType"] in KEEP]
    patients = [e["resource"] for e in entries if e["resource"]["resourceType"] == "Patient"]
    if len(patients) != 1 or entries[0]["resource"]["resourceType"] != "Patient":
        sys.exit("%s: expected the Patient as the first of the kept entries" % path)
    patient_id = patients[0]["id"]
    transform = TRANSFORMS.get(stem, "NONE")
    if transform == "ZERO_MEDICATION":
        entries = to_zero_medication(entries)
    elif transform == "SEPARATE_MEDICATION":
        entries = to_separate_medication(entries, patient_id)
    elif transform == "CONTAINED_MEDICATION":
        entries = to_contained_medication(entries)
    bundle = {
        "resourceType": "Bundle",
        "id": str(uuid.uuid5(UUID_NAMESPACE, "Bundle/" + stem)),
        "type": "collection",
        "entry": entries,
    }
    text = json.dumps(bundle, indent=1, ensure_ascii=False) + "\n"
    return fixture_name(patients[0]), text.encode("utf-8"), active_count(entries), transform


def main(argv):
    args = [a for a in argv[1:]]
    out_dir = os.path.join(REPO, "corpus", "scripts", "fhir", "bundles")
    if "--out" in args:
        i = args.index("--out")
        out_dir = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    data = os.path.abspath(args[0]) if args else os.path.normpath(os.path.join(REPO, "..", "shared", "data"))
    src_dir = os.path.join(data, SOURCE_DIR)
    sources = sorted(f for f in os.listdir(src_dir) if f.endswith(".json"))
    if len(sources) != EXPECTED_SOURCES:
        sys.exit("%s: expected %d bundles, found %d" % (src_dir, EXPECTED_SOURCES, len(sources)))
    missing = [s for s in TRANSFORMS if s + ".json" not in sources]
    if missing:
        sys.exit("transformed sources missing: " + ", ".join(missing))
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name in sources:
        path = os.path.join(src_dir, name)
        fixture, data_bytes, active, transform = trim(path)
        with open(os.path.join(out_dir, fixture), "wb") as f:
            f.write(data_bytes)
        rows.append((fixture, SOURCE_DIR + "/" + name, sha256_file(path), hashlib.sha256(data_bytes).hexdigest(),
                     str(len(data_bytes)), str(active), transform))
    rows.sort()
    with open(os.path.join(out_dir, "MANIFEST.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("file\tsource\tsource_sha256\tsha256\tbytes\tactive_medications\ttransformation\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    for r in rows:
        print("%-28s %7s bytes  %s active  %s" % (r[0], r[4], r[5], r[6]))


if __name__ == "__main__":
    main(sys.argv)
