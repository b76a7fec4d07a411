"""How a typed word is matched to the knowledge's forms, whatever case, width, spacing or
punctuation it was typed with, with or without its diacritics.

Two keys per word: `exact_key` keeps the diacritics (Vietnamese "cà" and "cá" are an eggplant and
a fish), `bare_key` drops them for a guest whose keyboard has none ("ca"). Both fold case
(`str.casefold`, so "STRASSE" and "straße" meet), apply NFKC (full-width letters, ligatures) and
keep letters and digits only, so "Spider-Man", "spider man" and "spiderman" are one key.
"""

from __future__ import annotations

import re
import unicodedata

_NOT_LETTER = re.compile(r"[\W_]+")
# Combining marks (the blocks of combining diacritics) and the letters with a stroke that NFD
# does not split into a base letter and a mark.
_BARE = {code: None for block in ((0x300, 0x370), (0x1AB0, 0x1B00), (0x1DC0, 0x1E00), (0x20D0, 0x2100),
                                  (0xFE20, 0xFE30)) for code in range(*block)}
_BARE.update({ord(k): v for k, v in {"đ": "d", "ø": "o", "ł": "l", "ħ": "h", "ı": "i"}.items()})


# Romanian's s and t with a cedilla, as old keyboards type them, are its letters with a comma.
_COMMA = str.maketrans("şţ", "șț")


def exact_key(text: str) -> str:
    """The word folded (NFKC, case folding, NFC) to its letters and digits, diacritics kept."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_LETTER.sub("", unicodedata.normalize("NFC", folded)).translate(_COMMA)


def bare_key(text: str) -> str:
    """`exact_key` without diacritics: "Ťhăng" and "thang" meet."""
    return strip_marks(exact_key(text))


def strip_marks(key: str) -> str:
    """An exact key's bare key."""
    return unicodedata.normalize("NFD", key).translate(_BARE)
