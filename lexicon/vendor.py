"""Copy the outside colour-name lists this project builds on into lexicon/sources/, as plain
tab-separated files with their source, version and licence on top. Run by hand when a source is
updated; the build (lexicon/build.py) reads only the copies, so it needs no network.

    pip download --no-deps -d /tmp/dl matplotlib    # the xkcd survey names (CC0) and CSS names
    npm pack color-name-list --pack-destination /tmp/dl
    python lexicon/vendor.py /tmp/dl/matplotlib-*.whl /tmp/dl/color-name-list-*.tgz
"""

from __future__ import annotations

import ast
import csv
import io
import re
import sys
import tarfile
import zipfile
from pathlib import Path

SOURCES = Path(__file__).parent / "sources"


def _dict_literal(source: str, name: str) -> dict[str, str]:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise SystemExit(f"{name} not found")


def vendor_matplotlib(wheel: Path) -> None:
    version = re.search(r"matplotlib-([^-]+)-", wheel.name).group(1)
    source = zipfile.ZipFile(wheel).read("matplotlib/_color_data.py").decode()
    xkcd = _dict_literal(source, "XKCD_COLORS")
    css = _dict_literal(source, "CSS4_COLORS")
    lines = ["# The xkcd colour survey's names and colours (Randall Munroe, 2010): the mean colour of the",
             "# samples people gave each name. CC0 1.0 (public domain). As shipped in matplotlib",
             f"# {version}, matplotlib/_color_data.py XKCD_COLORS ('xkcd:' prefix removed)."]
    lines += [f"{name.removeprefix('xkcd:')}\t{hex_}" for name, hex_ in sorted(xkcd.items())]
    (SOURCES / "xkcd.tsv").write_text("\n".join(lines) + "\n")
    lines = ["# The CSS Color Module Level 4 named colours (W3C; the names and values are the standard's",
             f"# facts). As shipped in matplotlib {version}, matplotlib/_color_data.py CSS4_COLORS."]
    lines += [f"{name}\t{hex_.lower()}" for name, hex_ in sorted(css.items())]
    (SOURCES / "css.tsv").write_text("\n".join(lines) + "\n")


def vendor_color_name_list(tarball: Path) -> None:
    with tarfile.open(tarball) as tar:
        meta = tar.extractfile("package/package.json").read().decode()
        table = tar.extractfile("package/src/colornames.csv").read().decode()
        licence = tar.extractfile("package/LICENSE").read().decode()
    version = re.search(r'"version":\s*"([^"]+)"', meta).group(1)
    rows = [row for row in csv.DictReader(io.StringIO(table)) if len(row["name"].split()) <= 2]
    lines = ["# color-name-list (David Aerne and contributors), the npm package, version " + version + ",",
             "# src/colornames.csv: names of one or two words, lower case; `x` marks the list's own 'good name'.",
             "# MIT licence: lexicon/sources/color-name-list.LICENSE."]
    seen = set()
    for row in sorted(rows, key=lambda r: r["name"].lower()):
        name = row["name"].lower()
        if name not in seen:
            seen.add(name)
            lines.append(f"{name}\t{row['hex'].lower()}\t{row['good name']}")
    (SOURCES / "color-name-list.tsv").write_text("\n".join(lines) + "\n")
    (SOURCES / "color-name-list.LICENSE").write_text(licence)


if __name__ == "__main__":
    wheel, tarball = (Path(a) for a in sys.argv[1:3])
    SOURCES.mkdir(exist_ok=True)
    vendor_matplotlib(wheel)
    vendor_color_name_list(tarball)
