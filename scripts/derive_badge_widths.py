#!/usr/bin/python3
"""Derive corpus/rules/badge_widths.tsv: advance widths of printable ASCII in DejaVu Sans at
11 px, the metrics shields.io-style badges are laid out with (Verdana's are proprietary; DejaVu
Sans is the font the badge names after Verdana in its font-family list).

Needs Debian's python3-fonttools and fonts-dejavu-core. Output is committed; run again only to
change the font:  /usr/bin/python3 scripts/derive_badge_widths.py
"""
import pathlib
from fontTools.ttLib import TTFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SIZE_PX = 11
out = pathlib.Path(__file__).resolve().parent.parent / "corpus/rules/badge_widths.tsv"
font = TTFont(FONT)
upem = font["head"].unitsPerEm
cmap = font.getBestCmap()
hmtx = font["hmtx"]
lines = ["# Advance widths in px of printable ASCII in DejaVu Sans at 11 px (scripts/derive_badge_widths.py).",
         "# Columns: code point <TAB> width. Characters not listed use the width of 'm'."]
for cp in range(0x20, 0x7F):
    glyph = cmap.get(cp)
    width = hmtx[glyph][0] * SIZE_PX / upem
    lines.append(f"{cp}\t{width:.4f}")
out.write_text("\n".join(lines) + "\n")
print(f"wrote {out} ({len(lines) - 2} glyphs)")
