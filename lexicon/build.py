"""Build console/bots/data/knowledge.tsv, the computer players' word-to-colour table, from the
sources in this folder:

- `concepts/*.tsv`: the project's own concepts, one file per kind (food.tsv, animal.tsv, ...),
  written by hand: the colour (a reference into an outside list, or a hex value estimated by
  the author), how much people disagree, whether a child knows it, the words in six languages.
- `colours.tsv`: colour names built from parts, "light" + "green" in each language's grammar,
  for each such name the xkcd survey has.
- `sources/`: the outside lists (lexicon/vendor.py copies them; their licences are there).

It also writes console/bots/data/shortlists.tsv, the givers' best words per cell, which
console/bots/aim.py works out from the table (seconds; a decision on a Pi Zero 2 W cannot).

The words a guest types beyond those written (plurals, a definite article's ending) are made by
small rules per language here; a made form that is another concept's written form is dropped.

    python lexicon/build.py            # writes the table
    python lexicon/build.py --check    # exit 1 if the shipped tables are not what the sources give
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from console.bots.words import exact_key as key  # noqa: E402  a made form is the written one it folds to
OUT = ROOT / "console" / "bots" / "data" / "knowledge.tsv"
SHORTLISTS = ROOT / "console" / "bots" / "data" / "shortlists.tsv"
LANGUAGES = ("en", "it", "cs", "ro", "es", "vi")
SPREADS = {"n": 45, "m": 65, "w": 90, "x": 130}  # one standard deviation, thousandths of OKLab
NAMED_KINDS = {"culture", "brand", "place"}  # proper names: no plurals made


class SourceError(Exception):
    pass


def read_list(name: str) -> dict[str, str]:
    table = {}
    for line in (HERE / "sources" / name).read_text().splitlines():
        if line and not line.startswith("#"):
            fields = line.split("\t")
            table.setdefault(fields[0], fields[1])
    return table


LISTS = {"xkcd": read_list("xkcd.tsv"), "css": read_list("css.tsv"), "cnl": read_list("color-name-list.tsv")}


def colour_of(ref: str, english: str, where: str) -> str:
    """`#rrggbb`, `xkcd` (the concept's English word in the xkcd survey), `xkcd:sky_blue`, `css:tomato`,
    `cnl:grass` -> the hex value."""
    if re.fullmatch(r"#[0-9a-f]{6}", ref):
        return ref
    source, _, name = ref.partition(":")
    name = name.replace("_", " ") if name else english.lower()
    if source not in LISTS or name not in LISTS[source]:
        raise SourceError(f"{where}: {ref!r}: no {name!r} in {source}")
    return LISTS[source][name].lower()


def colours_field(text: str, english: str, where: str) -> str:
    modes = []
    for token in text.split():
        ref, _, share = token.partition("*")
        hex_ = colour_of(ref, english, where)
        modes.append(f"{hex_}*{share}" if share else hex_)
    if len(modes) > 1 and not all("*" in m for m in modes):
        raise SourceError(f"{where}: several colours need a share each")
    if len(modes) > 4 or (len(modes) > 1 and abs(sum(float(m.split("*")[1]) for m in modes) - 1) > 0.01):
        raise SourceError(f"{where}: at most 4 colours, their shares adding up to 1")
    return " ".join(modes)


# -- forms a guest types, by language ---------------------------------------------------------

VOWELS = set("aeiouàèéìíòóùúăâîáéíóú")


def english_forms(word: str) -> list[str]:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return [word + "es"]
    if word.endswith("y") and len(word) > 2 and word[-2] not in VOWELS:
        return [word[:-1] + "ies"]
    return [word + "s"]


def italian_forms(word: str) -> list[str]:
    if len(word) < 4 or word[-1] not in "oae":
        return []
    stem, end = word[:-1], word[-1]
    if end == "a":
        if stem.endswith(("c", "g")):
            return [stem + "he"]
        if stem.endswith(("ci", "gi")):
            return [stem + "e", stem[:-1] + "e"]
        return [stem + "e"]
    if end == "o" and stem.endswith(("c", "g")):
        return [stem + "hi", stem + "i"]
    if end == "o" and stem.endswith("i"):
        return [stem]
    return [stem + "i"]


_SPANISH_STRESS = str.maketrans("áéíóú", "aeiou")


def spanish_forms(word: str) -> list[str]:
    if word[-1] in "aeiouáéó":
        return [word + "s"]
    if word.endswith("z"):
        return [word[:-1] + "ces"]
    if word[-1] in "sx" and len(word) > 4:
        return []
    if len(word) > 2 and word[-2] in "áéíóú" and word[-1] in "ns":
        return [word[:-2] + word[-2].translate(_SPANISH_STRESS) + word[-1] + "es"]
    return [word + "es"]


def romanian_forms(word: str) -> list[str]:
    if word.endswith("ă"):
        return [word[:-1] + "a", word[:-1] + "e"]
    if word.endswith("ie"):  # roșie -> roșia, lămâie -> lămâia
        return [word[:-1] + "a"]
    if word.endswith("e"):  # floare -> floarea
        return [word + "a"]
    if word.endswith("u"):
        return [word + "l"]
    if word[-1] not in VOWELS:
        return [word + "ul"]
    return []


_CZECH_SOFT = tuple("žščřcjďťň")


def czech_forms(word: str) -> list[str]:
    if word.endswith("ata"):  # already a plural (rajčata, kuřata)
        return []
    if word.endswith(("ev", "eň")):  # feminine: mrkev, broskev, třešeň lose the e (mrkve, třešně)
        return [word[:-2] + {"v": "ve", "ň": "ně"}[word[-1]]]
    if word.endswith("ost"):  # feminine: kost, radost
        return [word + "i"]
    if word.endswith("a"):
        return [word[:-1] + ("e" if word[:-1].endswith(_CZECH_SOFT) else "y")]
    if word.endswith("o"):
        return [word[:-1] + "a"]
    if word.endswith(("e", "ě", "í", "ý", "á", "é", "i", "u", "y")):
        return []
    if word.endswith(("ň", "ť", "ď")):  # kůň's kind: the hook goes on the e (jabloně, not jabloňe)
        return [word[:-1] + {"ň": "n", "ť": "t", "ď": "d"}[word[-1]] + "ě"]
    return [word + ("e" if word.endswith(_CZECH_SOFT) else "y")]


MADE = {"en": english_forms, "it": italian_forms, "es": spanish_forms, "ro": romanian_forms, "cs": czech_forms,
        "vi": lambda word: []}


def made_forms(lang: str, written: list[str], kind: str) -> list[str]:
    """The forms the rules make from a concept's written forms, but none from a written form that
    is itself what the rules make of another (carote beside carota, mrkve beside mrkev: no plural
    of a plural), in Romanian none from a later form ending in -e or -i (mostly the first's written
    plural, cireașă|cireșe, măr|mere, whose rules are not a singular's), and no Romanian -e plural
    where a plural is written."""
    if kind in NAMED_KINDS:
        return []
    by_word = {word: MADE[lang](word) for n, word in enumerate(written)
               if " " not in word and "-" not in word and len(word) > 2 and word.islower()
               and not (lang == "ro" and n > 0 and word.endswith(("e", "i")))}
    made: list[str] = []
    for word, forms in by_word.items():
        if any(word in others for other, others in by_word.items() if other != word):
            continue
        if lang == "ro" and word.endswith("ă") and any(w != word and w[:3] == word[:3] for w in written):
            forms = [f for f in forms if f != word[:-1] + "e"]
        made += forms
    return made


# -- the concepts -----------------------------------------------------------------------------


def read_concepts() -> list[dict]:
    concepts = []
    for path in sorted((HERE / "concepts").glob("*.tsv")):
        kind = path.stem
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            where = f"{path.relative_to(ROOT)}:{number}"
            fields = line.split("\t")
            if len(fields) != 4 + len(LANGUAGES):
                raise SourceError(f"{where}: {len(fields)} fields, not {4 + len(LANGUAGES)}")
            cid, colour, spread, child = fields[:4]
            words = {lang: [w.strip() for w in fields[4 + i].split("|") if w.strip()]
                     for i, lang in enumerate(LANGUAGES)}
            if spread not in SPREADS or child not in ("0", "1") or not all(words.values()):
                raise SourceError(f"{where}: spread one of {''.join(SPREADS)}, child 0 or 1, a word per language")
            concepts.append({"id": cid, "kind": kind, "child": child, "spread": SPREADS[spread],
                             "colours": colours_field(colour, words["en"][0], where), "words": words})
    return concepts


def read_colour_names() -> list[dict]:
    """colours.tsv: `base` lines (a colour term, its xkcd name, its words per language: the first
    the form a modifier takes) and `modifier` lines (its xkcd word and a pattern per language, `{}`
    the base). Every base, and every modifier with a base the survey has, is a concept."""
    bases, modifiers = [], []
    for number, line in enumerate((HERE / "colours.tsv").read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 + len(LANGUAGES) or fields[0] not in ("base", "modifier"):
            raise SourceError(f"lexicon/colours.tsv:{number}: a base or modifier line of {5 + len(LANGUAGES)} fields")
        entry = {"name": fields[1], "spread": fields[2], "child": fields[3], "xkcd": fields[4],
                 "words": {lang: [w.strip() for w in fields[5 + i].split("|")] for i, lang in enumerate(LANGUAGES)}}
        (bases if fields[0] == "base" else modifiers).append(entry)
    concepts = []
    for base in bases:
        concepts.append({"id": base["name"], "kind": "colour", "child": base["child"],
                         "spread": SPREADS[base["spread"]],
                         "colours": colours_field(base["xkcd"], base["name"], "lexicon/colours.tsv"),
                         "words": base["words"]})
        for modifier in modifiers:
            name = f"{modifier['xkcd']} {base['xkcd'].removeprefix('xkcd:').replace('_', ' ')}"
            if name not in LISTS["xkcd"]:
                continue
            words = {lang: [pattern.format(base["words"][lang][0]) for pattern in modifier["words"][lang]]
                     for lang in LANGUAGES}
            concepts.append({"id": f"{modifier['name']}-{base['name']}", "kind": "colour",
                             "child": "1" if modifier["child"] == "1" and base["child"] == "1" else "0",
                             "spread": SPREADS[modifier["spread"]], "colours": LISTS["xkcd"][name], "words": words})
    return concepts


def table() -> str:
    concepts = read_colour_names() + read_concepts()
    ids = [c["id"] for c in concepts]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise SourceError(f"ids written twice: {', '.join(repeated)}")
    for lang in LANGUAGES:
        written = {}
        for c in concepts:
            for w in c["words"][lang]:
                written.setdefault(key(w), c["id"])
        for c in concepts:
            own = {key(w) for w in c["words"][lang]}
            for form in made_forms(lang, c["words"][lang], c["kind"]):
                if key(form) not in own and written.get(key(form), c["id"]) == c["id"]:
                    c["words"][lang].append(form)
                    own.add(key(form))
    lines = ["# The computer players' word-to-colour knowledge, built by lexicon/build.py from lexicon/ (do not",
             "# edit: edit the sources and build). SOURCES.md beside this file says where each part comes from.",
             "# colours: sRGB hex, a share each when people split; spread: one standard deviation of people's",
             "# picks around them, thousandths of OKLab; child: 1 if a child knows the word; then the words",
             "# per language, the first the form shown, `|` between forms.",
             "\t".join(("id", "kind", "child", "spread", "colours") + LANGUAGES)]
    for c in sorted(concepts, key=lambda c: c["id"]):
        lines.append("\t".join([c["id"], c["kind"], c["child"], str(c["spread"]), c["colours"]]
                               + ["|".join(dict.fromkeys(c["words"][lang])) for lang in LANGUAGES]))
    return "\n".join(lines) + "\n"


def shortlists(text: str) -> str:
    """The givers' shortlists for the knowledge `text`, by console/bots/aim.py."""
    from console.bots.aim import LEVELS, shortlist_table, shortlists_text
    from console.bots.knowledge import parse_table

    built = parse_table(text)
    return shortlists_text({level: shortlist_table(built, level) for level in LEVELS})


def main(argv: list[str]) -> int:
    try:
        text = table()
    except SourceError as exc:
        print(f"lexicon/build.py: {exc}", file=sys.stderr)
        return 2
    lists = shortlists(text)
    if "--check" in argv:
        for path, wanted in ((OUT, text), (SHORTLISTS, lists)):
            if not path.is_file() or path.read_text() != wanted:
                print(f"{path.relative_to(ROOT)} is not what lexicon/ builds: run python lexicon/build.py",
                      file=sys.stderr)
                return 1
        return 0
    OUT.write_text(text)
    SHORTLISTS.write_text(lists)
    rows = text.count("\n") - 6
    print(f"{OUT.relative_to(ROOT)}: {rows} concepts, {len(text.encode()) // 1024} KiB; "
          f"{SHORTLISTS.relative_to(ROOT)}: {len(lists.encode()) // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
