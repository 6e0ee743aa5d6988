#!/usr/bin/env python3
"""golden_texts.py — real clinical text for grade_dump, written out one text per file.

A change meant to make the grader faster must not change one byte of what it computes.
grade_dump covers the fixtures; this adds the real conversations and notes under
../shared/data (ACI-Bench, MTS-Dialog, PriMock57, medExtractR and the other .txt sets), which the
repository does not carry, so that the check also runs over text nobody wrote for this project:

    python3 tests/tools/golden_texts.py ../shared/data /tmp/golden/texts
    build/tests/grade_dump /tmp/golden/texts > before.dump     # on the old build
    build/tests/grade_dump /tmp/golden/texts > after.dump      # on the new build
    cmp before.dump after.dump

Every CSV cell of 200 characters or more (dialogues, notes, sections) becomes one file, and so
does every .txt file of 200 characters or more, in sorted order: the same data gives the same
files. The output directory must be empty or absent.
"""
import csv
import pathlib
import sys

MIN_CHARS = 200


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: golden_texts.py DATA_DIR OUT_DIR")
    data, out = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    if not data.is_dir():
        sys.exit(f"golden_texts: {data}: not a directory")
    if out.exists() and any(out.iterdir()):
        sys.exit(f"golden_texts: {out}: not empty")
    out.mkdir(parents=True, exist_ok=True)
    csv.field_size_limit(1 << 30)
    count = 0

    def put(name, text):
        nonlocal count
        if len(text) < MIN_CHARS:
            return
        count += 1
        (out / f"{count:05d}_{name}.txt").write_text(text, encoding="utf-8")

    for f in sorted(data.glob("conversations/**/*.csv")):
        if "metadata" in f.name:
            continue
        with f.open(newline="", encoding="utf-8", errors="replace") as rows:
            for i, row in enumerate(csv.DictReader(rows)):
                for column, cell in row.items():
                    if cell:
                        put(f"{f.stem[:20]}_{i}_{(column or '')[:8]}", cell)
    for f in sorted(data.glob("**/*.txt")):
        put(f.stem[:30], f.read_text(encoding="utf-8", errors="replace"))
    print(f"golden_texts: {count} texts in {out}")


if __name__ == "__main__":
    main(sys.argv)
