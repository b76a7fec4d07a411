"""How a typed word is matched to the knowledge's forms, whatever case, width, spacing or
punctuation it was typed with, with or without its diacritics.

Two keys per word: `exact_key` keeps the diacritics (Vietnamese "cà" and "cá" are an eggplant and
a fish), `bare_key` drops them for a guest whose keyboard has none ("ca"). Both fold case
(`str.casefold`, so "STRASSE" and "straße" meet), apply NFKC (full-width letters, ligatures) and
keep letters and digits only, so "Spider-Man", "spider man" and "spiderman" are one key. The
accents are the clue check's (`console.game.clue_text`): a bare key is its `skeleton`, and a
Vietnamese exact key is its `syllable_key` per syllable, so a tone mark written on either vowel
(hoà, hòa) is one key.
"""

from __future__ import annotations

import re
import unicodedata

from console.game.clue_text import skeleton, syllable_key

_NOT_LETTER = re.compile(r"[\W_]+")
# Romanian's s and t with a cedilla, as old keyboards type them, are its letters with a comma.
_COMMA = str.maketrans("şţ", "șț")


def exact_key(text: str, lang: str = "") -> str:
    """The word folded (NFKC, case folding, NFC) to its letters and digits, diacritics kept; in
    Vietnamese ("vi") each syllable with its tone as a number after its letters."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFKC", text).casefold()).translate(_COMMA)
    if lang == "vi":
        return "".join(syllable_key(syllable) for syllable in _NOT_LETTER.split(folded) if syllable)
    return _NOT_LETTER.sub("", folded)


def bare_key(text: str) -> str:
    """The word without diacritics, as the clue check compares words (`skeleton`), letters and
    digits only: "Ťhăng" and "thang" meet."""
    return _NOT_LETTER.sub("", skeleton(unicodedata.normalize("NFKC", text)))
