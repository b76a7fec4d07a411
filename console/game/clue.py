"""Whether a typed clue keeps the rules of the game, in the giver's language and in English.

The rules say what a clue may not be: more than one word (the first clue) or two (the second);
a basic colour's name (black, blue, brown, grey, green, orange, pink, purple, red, white, yellow),
in any form a speaker writes it, also inside a compound that is a colour name (sky-blue,
azzurro-cielo, skyblue, tmavomodrý, bluish); the board's coordinates (H15, "15 h", a lone row
letter or column number); in the second clue, a word that compares with the first guesses
(darker, più, mai, hơn). The words the check knows are data, clue_words/ (their sources, licences
and choices in its README.md), and `word_list` gives them as written there. What the characters
of a clue may be is clue_text's. Objects in the room are the table's to judge: no program can.

A word is what a speaker counts as one: a hyphenated compound is one word; a linking de/di/da
between two words goes with the word after it (algodón de azúcar is two words, as the Spanish
rules count it); Vietnamese writes a word as syllables apart (bầu trời), so its words come from a
list of Vietnamese words, a classifier (con, màu, hoa, ...) going with the word after it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from console.game.board import COLS, ROW_LETTERS, brief_repr
from console.game.clue_text import (character_problem, display_word, parts, shown_as_typed, skeleton,
                                    syllable_key, typed_words)

LANGUAGES = ("en", "it", "cs", "ro", "es", "vi")
COLOURS = ("black", "blue", "brown", "grey", "green", "orange", "pink", "purple", "red", "white", "yellow")
RULES = ("empty", "too_long", "not_letters", "invisible", "mixed_script", "other_script", "coordinate",
         "colour_name", "comparative", "too_many_words")
MAX_TYPED_BYTES = 512  # of UTF-8 as typed, spaces and all: checked before anything is read
MAX_CLUE_CHARS = 40  # of the display form
MAX_CLASSIFIERS = 2  # màu hoa oải hương: "the colour of the flower lavender", one word
MAX_SYLLABLES = 4  # of a Vietnamese word in the list

_ROWS = ROW_LETTERS.lower()
_CELL = re.compile(rf"([{_ROWS}])([0-9]+)|([0-9]+)([{_ROWS}])")


@dataclass(frozen=True)
class Accepted:
    """A clue that keeps the rules: `display` is what every screen shows (NFKC, single spaces,
    dashes as -, apostrophes as ’), `words` the words the rules counted in it."""

    display: str
    words: tuple[str, ...]
    ok: ClassVar[bool] = True


@dataclass(frozen=True)
class Refused:
    """A clue that breaks `rule` (one of RULES) with `word`, as the guest typed it but with
    invisible characters shown as � and cut to 20 characters ("" when no word is to blame: empty,
    too long). The word may hold markup characters: it is text, shown as text."""

    rule: str
    word: str = ""
    ok: ClassVar[bool] = False

    @property
    def key(self) -> str:
        """The refusal's key: the phones' words for it are `refused.<key>`."""
        return f"clue_{self.rule}"

    @property
    def params(self) -> dict[str, object]:
        return {"word": self.word, "limit": MAX_CLUE_CHARS}


ClueVerdict = Accepted | Refused
REFUSAL_KEYS = tuple(Refused(rule).key for rule in RULES)


@dataclass(frozen=True)
class WordList:
    """One language's words as clue_words/<lang>.json writes them. An entry `stem+e` stands for
    the stem with each ending of `endings[e]` ("ross+o": rosso, rossa, rossi, rosse)."""

    colours: tuple[tuple[str, tuple[str, ...]], ...]  # (colour, entries) for each of COLOURS
    modifiers: tuple[str, ...]  # closed compounds with a colour: sky + blue, azzurro + cielo
    comparatives: tuple[str, ...]
    endings: tuple[tuple[str, tuple[str, ...]], ...]
    one_letter_words: tuple[str, ...]  # real words, not row letters, beside another word
    linking_words: tuple[str, ...]
    classifiers: tuple[str, ...]  # Vietnamese
    homographs: tuple[str, ...]  # Vietnamese words where a colour's syllable means something else
    lexicon_extra: tuple[str, ...]  # Vietnamese words beyond vi-words.txt
    syllable_words: bool  # Vietnamese: words are syllables apart, compared with their tones


@cache
def word_list(lang: str) -> WordList:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {brief_repr(lang)}: one of {', '.join(LANGUAGES)}")
    import json  # here, not at import: the command line's every start imports this module

    data = json.loads(_data_file(f"{lang}.json"))

    def listed(name: str) -> tuple[str, ...]:
        return tuple(data.get(name, ()))

    return WordList(colours=tuple((colour, tuple(data["colours"][colour])) for colour in COLOURS),
                    modifiers=listed("modifiers"), comparatives=listed("comparatives"),
                    endings=tuple((name, tuple(endings)) for name, endings in data.get("endings", {}).items()),
                    one_letter_words=listed("one_letter_words"), linking_words=listed("linking_words"),
                    classifiers=listed("classifiers"), homographs=listed("homographs"),
                    lexicon_extra=listed("lexicon_extra"), syllable_words=bool(data.get("syllable_words")))


def forms(entry: str, words: WordList) -> tuple[str, ...]:
    """The words one entry of the data stands for."""
    stem, plus, ending = entry.partition("+")
    return tuple(stem + end for end in dict(words.endings)[ending]) if plus else (entry,)


@dataclass(frozen=True)
class _Known:
    """One language's words as the check compares them: skeletons, or Vietnamese syllable keys."""

    colours: frozenset[str]
    modifiers: frozenset[str]
    comparatives: frozenset[str]
    one_letter_words: frozenset[str]
    linking_words: frozenset[str]
    classifiers: frozenset[str]
    homographs: frozenset[tuple[str, ...]]
    lexicon: frozenset[tuple[str, ...]]
    syllable_words: bool


def prepare(lang: str) -> None:
    """Read `lang`'s word lists now, where waiting is harmless: the first check in a language
    otherwise reads them (Vietnamese's lexicon is large), wherever it comes."""
    _known(lang)


@cache
def _known(lang: str) -> _Known:
    words = word_list(lang)
    key = syllable_key if words.syllable_words else skeleton

    def keys(entries) -> frozenset[str]:
        return frozenset(key(form) for entry in entries for form in forms(entry, words))

    def phrases(lines) -> frozenset[tuple[str, ...]]:
        return frozenset(tuple(syllable_key(s) for s in line.split()) for line in lines)

    lexicon = frozenset()
    if words.syllable_words:
        lexicon = phrases(_data_file("vi-words.txt").splitlines() + [*words.lexicon_extra, *words.homographs])
    return _Known(colours=keys(entry for _, entries in words.colours for entry in entries),
                  modifiers=keys(words.modifiers), comparatives=keys(words.comparatives),
                  one_letter_words=frozenset(unicodedata.normalize("NFC", w.casefold()) for w in words.one_letter_words),
                  linking_words=keys(words.linking_words), classifiers=keys(words.classifiers),
                  homographs=phrases(words.homographs), lexicon=lexicon, syllable_words=words.syllable_words)


def _data_file(name: str) -> str:
    from importlib import resources

    return (resources.files("console.game") / "clue_words" / name).read_text(encoding="utf-8")


def check_clue(text: str, lang: str, *, second: bool) -> ClueVerdict:
    """The verdict on a typed clue: the first clue when `second` is false. `lang` is the giver's
    language (one of LANGUAGES, else ValueError); English holds too. Bounded: at most
    MAX_TYPED_BYTES are read, whatever `text` holds."""
    languages = (_known(lang),) if lang == "en" else (_known(lang), _known("en"))
    if not isinstance(text, str):
        return Refused("not_letters")
    if len(text) > MAX_TYPED_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_TYPED_BYTES:
        return Refused("too_long")
    typed = typed_words(text)
    if not typed:
        return Refused("empty")
    for word in typed:
        if problem := character_problem(word):
            return Refused(problem, shown_as_typed(word))
    words = []
    for word in typed:
        if (shown := display_word(word)) is None:
            return Refused("not_letters", shown_as_typed(word))
        words.append(shown)
    display = " ".join(words)
    if len(display) > MAX_CLUE_CHARS:
        return Refused("too_long")
    units = _vietnamese_words(words, languages[0]) if languages[0].syllable_words else _linked_words(words, languages[0])
    rules = [("coordinate", _coordinate(words, languages)), ("colour_name", _colour(words, units, languages))]
    if second:
        rules.append(("comparative", _comparative(words, units, languages)))
    rules.append(("too_many_words", (0, len(words)) if len(units) > (2 if second else 1) else None))
    for rule, span in rules:
        if span is not None:
            return Refused(rule, shown_as_typed(" ".join(typed[span[0]:span[1]])))
    return Accepted(display, tuple(" ".join(words[start:end]) for start, end in units))


Span = tuple[int, int]  # words[start:end]


def _linked_words(words: list[str], known: _Known) -> list[Span]:
    """The words as counted: a linking word between two words goes with the one after it."""
    units, start = [], 0
    for i, word in enumerate(words):
        if 0 < i < len(words) - 1 and skeleton(word) in known.linking_words:
            continue
        units.append((start, i + 1))
        start = i + 1
    return units


def _vietnamese_words(syllables: list[str], known: _Known) -> list[Span]:
    """The fewest words the syllables make: a word is a syllable, or up to MAX_SYLLABLES of them
    that the list knows, after at most MAX_CLASSIFIERS classifiers. Ties go to the longer word."""
    keys = [syllable_key(s) for s in syllables]
    n = len(keys)
    best: list[tuple[int, int]] = [(0, n)] * (n + 1)  # (words from here to the end, end of the first)
    for i in range(n - 1, -1, -1):
        choice = None
        for lead in range(MAX_CLASSIFIERS + 1):
            start = i + lead
            if start >= n or (lead and keys[start - 1] not in known.classifiers):
                break
            for end in range(start + 1, min(n, start + MAX_SYLLABLES) + 1):
                if end - start == 1 or tuple(keys[start:end]) in known.lexicon:
                    count = 1 + best[end][0]
                    if choice is None or (count, -end) < (choice[0], -choice[1]):
                        choice = (count, end)
        best[i] = choice
    units, i = [], 0
    while i < n:
        units.append((i, best[i][1]))
        i = best[i][1]
    return units


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _column(text: str) -> bool:
    return _number(text) and 1 <= int(text) <= COLS


def _cell(text: str) -> bool:
    match = _CELL.fullmatch(text)
    return match is not None and _column(match.group(2) or match.group(3))


def _row(text: str) -> bool:
    """A row letter, or 0: the rules print the row O so ("0 26")."""
    return len(text) == 1 and (text in _ROWS or text == "0")


def _coordinate(words: list[str], languages: tuple[_Known, ...]) -> Span | None:
    """H15, 15h, h-15, "h 15", "15 H", "0 26"; a lone number up to COLS (0 too); a lone row letter,
    unless it is a real one-letter word beside another word (English "a cloud") or written with
    its accents (Vietnamese ô, an umbrella)."""
    skeletons = [skeleton(word) for word in words]
    one_letter_words = frozenset().union(*(known.one_letter_words for known in languages))
    for i, (word, text) in enumerate(zip(words, skeletons)):
        if i + 1 < len(words):
            other = skeletons[i + 1]
            if (_row(text) and _column(other)) or (_column(text) and _row(other)):
                return i, i + 2
        if _cell(text) or (_number(text) and int(text) <= COLS):
            return i, i + 1
        if _row(text):
            folded = unicodedata.normalize("NFC", word.casefold())
            accented = len(unicodedata.normalize("NFD", folded)) > 1
            if folded not in one_letter_words or not (len(words) > 1 or accented):
                return i, i + 1
    return None


def _made_of_colours(text: str, colours: frozenset[str], modifiers: frozenset[str]) -> bool:
    """Whether `text` (a skeleton) is colour words and modifiers run together, one colour word at
    least: "skyblue", "bianconero", "tmavomodry" (tmavo + modry), not "blackberry" or "fred"."""
    reach = [0] * (len(text) + 1)  # bit 1: reached; bit 2: reached through a colour word
    reach[0] = 1
    for i in range(len(text)):
        if reach[i]:
            for j in range(i + 1, len(text) + 1):
                piece = text[i:j]
                if piece in colours:
                    reach[j] |= 3
                elif piece in modifiers:
                    reach[j] |= reach[i]
    return reach[-1] >= 2


def _colour(words: list[str], units: list[Span], languages: tuple[_Known, ...]) -> Span | None:
    """A colour word: a word, a part of it, or the clue's words run together ("bl ue")."""
    by_skeleton = [known for known in languages if not known.syllable_words]
    colours = frozenset().union(*(known.colours for known in by_skeleton))
    modifiers = frozenset().union(*(known.modifiers for known in by_skeleton))
    vietnamese = next((known for known in languages if known.syllable_words), None)

    def is_colour(text: str) -> bool:
        pieces = parts(text) + [text]
        if any(_made_of_colours(skeleton(piece), colours, modifiers) for piece in pieces):
            return True
        return vietnamese is not None and any(syllable_key(piece) in vietnamese.colours for piece in pieces)

    for start, end in units:
        if vietnamese is not None and _homograph(words[start:end], vietnamese):
            continue
        if any(is_colour(word) for word in words[start:end]):
            return start, end
    return (0, len(words)) if len(words) > 1 and is_colour("".join(words)) else None


def _homograph(syllables: list[str], vietnamese: _Known) -> bool:
    keys = tuple(syllable_key(s) for s in syllables)
    return any(keys[lead:] in vietnamese.homographs for lead in range(MAX_CLASSIFIERS + 1))


def _comparative(words: list[str], units: list[Span], languages: tuple[_Known, ...]) -> Span | None:
    for start, end in units:
        for word in words[start:end]:
            for piece in parts(word) + [word]:
                for known in languages:
                    key = syllable_key(piece) if known.syllable_words else skeleton(piece)
                    if key in known.comparatives:
                        return start, end
    return None
