"""The word-to-colour knowledge: concepts (a banana, the sky, envy, Shrek), the colour people think
of for each, how much people disagree about it, and the words that name it in six languages.

The table is `data/knowledge.tsv`, built by `lexicon/build.py` from the sources in `lexicon/`
(`data/SOURCES.md` says which, under which licence, and how). It is read the first time a
computer player needs it, never at the console's start, and kept: `knowledge()` parses it once
(docs/BOTS.md has the memory it takes, measured).

A word is found by its exact key first (diacritics kept) and by its bare key when that fails, so a
guest without diacritics on their keyboard is understood; when several concepts share a key, the
one a child knows comes first, then the table's order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from console.bots.words import bare_key, exact_key
from console.game.clue import LANGUAGES
from console.view.palette import Lab, srgb_to_oklab

COLUMNS = ("id", "kind", "child", "spread", "colours") + LANGUAGES
# The kinds of concept; `colour` is a colour's own name, which the rules forbid as a clue.
KINDS = ("colour", "food", "drink", "animal", "plant", "nature", "place", "weather", "time", "material",
         "object", "clothing", "body", "feeling", "culture", "brand")
MAX_MODES = 4


class KnowledgeError(ValueError):
    """The shipped table is not what this code reads (a build that went wrong): names the line."""


class UnknownWord(ValueError):
    """A word of a clue that names no concept in the language (or none a child knows)."""

    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


@dataclass(frozen=True)
class Concept:
    """One thing people name: its colours (the modes people split between, as OKLab with their
    shares), how far people's picks spread around them (OKLab units, one standard deviation), and
    its words per language, the first one the form shown."""

    id: str
    kind: str
    child: bool
    spread: float
    modes: tuple[tuple[Lab, float], ...]
    words: dict[str, tuple[str, ...]]

    def word(self, lang: str) -> str:
        return self.words[lang][0]


class Knowledge:
    """The concepts and, per language, which concepts each key of a form leads to: an index of
    exact keys, and one of bare keys for the forms whose bare key differs (a form without marks is
    found by its exact key either way). A key leading to one concept holds its number, to several a
    tuple of them, the ones a child knows first; the index of a form already folded shares its
    string (a few megabytes less for thousands of concepts: docs/BOTS.md)."""

    def __init__(self, concepts: tuple[Concept, ...]) -> None:
        self.concepts = concepts
        self._exact: dict[str, dict[str, int | tuple[int, ...]]] = {}
        self._bare: dict[str, dict[str, int | tuple[int, ...]]] = {}
        self._rank = {i: rank for rank, i in enumerate(sorted(range(len(concepts)),
                                                                 key=lambda i: (not concepts[i].child, i)))}
        order = sorted(self._rank, key=self._rank.__getitem__)
        for lang in LANGUAGES:
            exact: dict[str, list[int]] = {}
            bare: dict[str, list[int]] = {}
            for i in order:
                for form in concepts[i].words[lang]:
                    key = exact_key(form, lang)
                    key = form if key == form else key
                    stripped = bare_key(form)
                    for index, k in ((exact, key), (bare, stripped)) if stripped != key else ((exact, key),):
                        found = index.setdefault(k, [])
                        if i not in found:
                            found.append(i)
            self._exact[lang] = {key: found[0] if len(found) == 1 else tuple(found) for key, found in exact.items()}
            self._bare[lang] = {key: found[0] if len(found) == 1 else tuple(found) for key, found in bare.items()}
        self.by_id = {concept.id: concept for concept in concepts}

    def lookup(self, lang: str, word: str, child_only: bool = False) -> Concept | None:
        """The concept a typed word names in `lang`, or None; `child_only` looks among the words a
        child knows. The exact key first; then the bare key, among the forms without marks and
        the bare keys of those with marks together."""
        exact, bare = self._exact[lang], self._bare[lang]
        typed = exact_key(word, lang)
        found = self._first(exact.get(typed, ()), child_only) if typed else None
        if found is None and typed:
            stripped = bare_key(word)
            candidates = sorted(set(_numbers(exact.get(stripped, ()))) | set(_numbers(bare.get(stripped, ()))),
                                key=self._rank.__getitem__)
            found = self._first(tuple(candidates), child_only)
        return found

    def _first(self, numbers: int | tuple[int, ...], child_only: bool) -> Concept | None:
        for i in _numbers(numbers):
            if self.concepts[i].child or not child_only:
                return self.concepts[i]
        return None

    def read(self, lang: str, tokens: list[str], child_only: bool = False) -> tuple[Concept, ...]:
        """The concepts a clue typed as `tokens` names: the longest known phrase from the left each
        time ("light green", Vietnamese "bầu trời" are one), so "bầu trời xanh" is two. An unknown
        part is an UnknownWord naming it."""
        concepts: list[Concept] = []
        start = 0
        while start < len(tokens):
            for end in range(len(tokens), start, -1):
                found = self.lookup(lang, " ".join(tokens[start:end]), child_only)
                if found is not None:
                    concepts.append(found)
                    start = end
                    break
            else:
                raise UnknownWord(tokens[start])
        return tuple(concepts)

    def vocabulary(self, lang: str, child_only: bool = False) -> tuple[Concept, ...]:
        if lang not in LANGUAGES:
            raise KnowledgeError(f"no language {lang!r}")
        return tuple(c for c in self.concepts if c.child or not child_only)


def _numbers(found: int | tuple[int, ...]) -> tuple[int, ...]:
    return (found,) if isinstance(found, int) else found


def parse_table(text: str) -> Knowledge:
    """The table's text (tab-separated, `#` comment lines, a header) as `Knowledge`."""
    concepts = []
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line and not line.startswith("#")]
    if not lines or tuple(lines[0][1].split("\t")) != COLUMNS:
        raise KnowledgeError(f"the table's header is not {' '.join(COLUMNS)}")
    seen = set()
    for number, line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise KnowledgeError(f"line {number}: {len(fields)} fields, not {len(COLUMNS)}")
        cid, kind, child, spread, colours = fields[:5]
        if cid in seen or kind not in KINDS or child not in ("0", "1"):
            raise KnowledgeError(f"line {number}: a repeated id, an unknown kind or a child flag not 0/1")
        seen.add(cid)
        try:
            modes = tuple(_mode(part) for part in colours.split())
            sigma = int(spread) / 1000
        except ValueError:
            raise KnowledgeError(f"line {number}: colours {colours!r} or spread {spread!r} unreadable") from None
        if not 0 < len(modes) <= MAX_MODES or abs(sum(w for _, w in modes) - 1) > 0.01 or not 0 < sigma < 1:
            raise KnowledgeError(f"line {number}: 1 to {MAX_MODES} colours sharing 1, a spread from 1 to 999")
        words = {lang: tuple(fields[5 + i].split("|")) for i, lang in enumerate(LANGUAGES)}
        if any(not form.strip() for forms in words.values() for form in forms):
            raise KnowledgeError(f"line {number}: an empty word")
        concepts.append(Concept(cid, kind, child == "1", sigma, modes, words))
    return Knowledge(tuple(concepts))


def _mode(text: str) -> tuple[Lab, float]:
    """`#rrggbb` (all of the concept) or `#rrggbb*0.6` (a share of it)."""
    colour, _, share = text.partition("*")
    if len(colour) != 7 or colour[0] != "#":
        raise ValueError(text)
    rgb = (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
    return srgb_to_oklab(rgb), float(share) if share else 1.0


@functools.cache
def knowledge() -> Knowledge:
    """The shipped knowledge, parsed the first time it is asked for."""
    from importlib import resources

    text = resources.files("console.bots").joinpath("data", "knowledge.tsv").read_text("utf-8")
    return parse_table(text)
