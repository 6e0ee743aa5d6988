#!/usr/bin/env python3
# check_fixtures.py -- the fhir_extract fixtures are reproducible.
#
# Always: every corpus/scripts/fhir/bundles/*.json has the size and SHA-256 its MANIFEST.tsv records,
# and the manifest lists every bundle.  When the Synthea sources are present
# ($SCRIBE_SHARED_DATA, else <repo>/../shared/data): their SHA-256 match the manifest, and
# scripts/derive_fhir_fixtures.py run twice into two temporary directories writes the same
# bytes both times, equal to the committed files.  Without the sources the second part is
# skipped (exit 77, which ctest reports as skipped).
import filecmp
import hashlib
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLES = os.path.join(REPO, "corpus", "scripts", "fhir", "bundles")
SCRIPT = os.path.join(REPO, "scripts", "derive_fhir_fixtures.py")
SKIP = 77


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    with open(os.path.join(BUNDLES, "MANIFEST.tsv"), encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    files = sorted(n for n in os.listdir(BUNDLES) if n.endswith(".json"))
    if sorted(r["file"] for r in rows) != files:
        fail("MANIFEST.tsv lists %s, the directory holds %s" % (sorted(r["file"] for r in rows), files))
    for r in rows:
        path = os.path.join(BUNDLES, r["file"])
        if os.path.getsize(path) != int(r["bytes"]) or sha256(path) != r["sha256"]:
            fail("%s does not match MANIFEST.tsv" % r["file"])
    print("%d committed bundles match MANIFEST.tsv" % len(rows))

    data = os.environ.get("SCRIBE_SHARED_DATA") or os.path.join(REPO, "..", "shared", "data")
    if not os.path.isdir(os.path.join(data, "synthea", "blaze_synthea_v2.7.0")):
        print("skipped: no Synthea sources under %s (set SCRIBE_SHARED_DATA)" % data)
        sys.exit(SKIP)
    for r in rows:
        if sha256(os.path.join(data, r["source"])) != r["source_sha256"]:
            fail("source %s has changed since the fixtures were derived" % r["source"])
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        for out in (a, b):
            subprocess.run([sys.executable, SCRIPT, data, "--out", out], check=True, stdout=subprocess.DEVNULL)
        names = sorted(os.listdir(a))
        if names != sorted(os.listdir(b)) or names != sorted(files + ["MANIFEST.tsv"]):
            fail("the two runs wrote different files: %s / %s" % (names, sorted(os.listdir(b))))
        for n in names:
            if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False):
                fail("%s differs between two runs" % n)
            if not filecmp.cmp(os.path.join(a, n), os.path.join(BUNDLES, n), shallow=False):
                fail("%s differs from the committed file" % n)
    print("two runs of derive_fhir_fixtures.py wrote identical bytes, equal to the committed files")


if __name__ == "__main__":
    main()
