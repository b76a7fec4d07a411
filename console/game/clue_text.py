"""A typed clue as text: which characters a clue may hold, its display form, and the keys the
rules compare words by.

A clue comes from a guest's phone and is shown on every screen, so its characters are held to
the six languages' alphabets: the letters a-z and đ, with at most two of the accents these
languages put on a letter (Vietnamese ệ has two), digits, and a hyphen or an apostrophe inside a
word. NFKC folds compatibility forms first (fullwidth ｒｅｄ, 𝐫𝐞𝐝, ﬁ, Ⓡ, superscripts), so they are
read as the letters they look like. Everything else is refused by kind: signs that are no
letters (emoji, markup, punctuation, controls, stacked marks), invisible characters (zero-width,
bidi controls, soft hyphen, variation selectors, tags, fillers), and letters of other alphabets,
which is what a look-alike (Cyrillic а, Greek ο, dotless ı, script ɡ) is. A display form then
holds no character that markup or a terminal could act on.
"""

from __future__ import annotations

import unicodedata

MAX_MARKS = 2  # accents on one letter: Vietnamese ệ, ặ, ờ have two
# The accents of the six languages' letters (and of the loanwords they write): grave, acute,
# circumflex, tilde, macron, breve, dot above, diaeresis, hook above, ring, double acute, caron,
# horn, dot below, comma below, cedilla, ogonek.
ACCENTS = frozenset("\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u0309\u030a\u030b\u030c"
                    "\u031b\u0323\u0326\u0327\u0328")
APOSTROPHES = frozenset("'\u2019\u02bc")  # typed ', a phone's ’, the modifier letter ʼ
APOSTROPHE = "\u2019"  # as shown: a typographic apostrophe is no markup character
HYPHEN = "-"  # every dash (Unicode category Pd) is shown as this
JOINERS = HYPHEN + APOSTROPHE
LINE_SEPARATORS = frozenset("\t\n\r\x0b\x0c\x85")
# Unicode 15's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) beyond the format
# characters (Cf), which are all invisible too: fillers, variation selectors, the grapheme joiner.
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
              (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
# The tone marks of Vietnamese, each a tone number; the other accents make other letters (ư, â, ă).
_TONES = {"\u0301": "1", "\u0300": "2", "\u0309": "3", "\u0303": "4", "\u0323": "5"}
SHOWN_CHARS = 20  # of a refused word, as it is shown back: it fits the phone's line with its sentence
REPLACEMENT = "\ufffd"


def is_separator(ch: str) -> bool:
    """Spaces of every width, tabs and line breaks part words; NFKC would fold most of them."""
    return ch in LINE_SEPARATORS or unicodedata.category(ch) in ("Zs", "Zl", "Zp")


def typed_words(text: str) -> list[str]:
    """The words as typed: runs of characters between separators."""
    words, start = [], None
    for i, ch in enumerate(text):
        if is_separator(ch):
            if start is not None:
                words.append(text[start:i])
                start = None
        elif start is None:
            start = i
    if start is not None:
        words.append(text[start:])
    return words


def is_invisible(ch: str) -> bool:
    if unicodedata.category(ch) == "Cf":
        return True
    point = ord(ch)
    return any(low <= point <= high for low, high in _IGNORABLE)


def is_alphabet_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch in "đĐ"


def character_problem(word: str) -> str | None:
    """What is wrong with the characters of one typed word, as a rule key, or None. Signs that
    are no letters come first, then invisible characters, then letters of other alphabets."""
    invisible = alphabet = foreign = False
    base = None  # the kind of the character marks would sit on: "letter", "foreign" or None
    marks = 0
    for ch in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", word)):
        category = unicodedata.category(ch)
        if is_invisible(ch):
            invisible = True
        elif category[0] == "M":
            marks += 1
            if base == "foreign":
                continue  # a mark of another alphabet's letter (Cyrillic й): that letter is refused
            if base != "letter" or ch not in ACCENTS or marks > MAX_MARKS:
                return "not_letters"
        else:
            marks, base = 0, None
            if is_alphabet_letter(ch):
                alphabet, base = True, "letter"
            elif "0" <= ch <= "9" or ch in APOSTROPHES or category == "Pd":
                pass
            elif category[0] == "L" or category == "Nd":
                foreign, base = True, "foreign"
            else:
                return "not_letters"
    if invisible:
        return "invisible"
    if foreign:
        return "mixed_script" if alphabet else "other_script"
    return None


def display_word(word: str) -> str | None:
    """A typed word whose characters passed `character_problem`, as shown: NFKC (hence NFC), every
    dash a hyphen, every apostrophe ’. None when it is no word: no letter or digit, or a hyphen
    at either end or joiners side by side."""
    shown = "".join(HYPHEN if unicodedata.category(ch) == "Pd" else APOSTROPHE if ch in APOSTROPHES else ch
                    for ch in unicodedata.normalize("NFKC", word))
    if not any(ch not in JOINERS for ch in shown) or shown[0] == HYPHEN or shown[-1] == HYPHEN:
        return None
    if any(a in JOINERS and b in JOINERS for a, b in zip(shown, shown[1:])):
        return None
    return shown


def parts(word: str) -> list[str]:
    """A display word's parts between hyphens and apostrophes ("sky-blue", "l’azzurro")."""
    return [part for part in word.replace(APOSTROPHE, HYPHEN).split(HYPHEN) if part]


def skeleton(word: str) -> str:
    """What a display word is compared by outside Vietnamese: no case, no accent, đ as d, no
    joiners. "Azzurro-Cielo" -> "azzurrocielo", "roșu" and "roşu" -> "rosu"."""
    bare = "".join(ch for ch in unicodedata.normalize("NFD", word.casefold())
                   if unicodedata.category(ch)[0] != "M" and ch not in JOINERS)
    return bare.replace("đ", "d")


def syllable_key(syllable: str) -> str:
    """What a Vietnamese syllable is compared by: no case, the tone mark as a number after the
    letters, wherever it was written (hoà = hòa), every other accent kept (tím is not tim)."""
    tone, letters = "0", []
    for ch in unicodedata.normalize("NFD", syllable.casefold()):
        if ch in _TONES:
            tone = _TONES[ch]
        elif ch not in JOINERS:
            letters.append(ch)
    return unicodedata.normalize("NFC", "".join(letters)) + tone


def shown_as_typed(word: str) -> str:
    """A refused word to show back to the guest who typed it: as typed, but every invisible or
    control character (and a lone surrogate) shown as �, variation selectors dropped, at most two
    marks on a character, cut to SHOWN_CHARS characters."""
    out, marks = [], 0
    for ch in word[:SHOWN_CHARS]:
        category = unicodedata.category(ch)
        if 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF:
            continue
        if is_invisible(ch) or category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(REPLACEMENT)
            marks = 0
        elif category[0] == "M":
            marks += 1
            if marks <= MAX_MARKS:
                out.append(ch)
        else:
            out.append(ch)
            marks = 0
    return "".join(out) + ("…" if len(word) > SHOWN_CHARS else "")
