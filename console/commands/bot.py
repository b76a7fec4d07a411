"""`hues-console bot guess|clue`: what a computer player would do on an empty board, for checks
from outside (people's own guesses, a list of words to pick a clue from).

`guess` prints the cells a computer guesser would choose for a clue, best first, one a line;
`clue` prints the word a computer giver would say for a target cell, from a file's words (one a
line) or from everything it knows but colour names, which the rules forbid.
"""

from __future__ import annotations

from console.bots.aim import aim
from console.bots.knowledge import UnknownWord
from console.commands.common import UsageError, read_text
from console.game.board import ALL_CELLS, RuleError, parse_cell

WORDS_FILE_LIMIT = 1 << 20  # a word list of a megabyte is tens of thousands of words
MAX_CLUE_TOKENS = 8  # two words, a Vietnamese word being up to four syllables


def guess_main(lang: str, level: str, words: list[str], count: int) -> int:
    if len(words) > MAX_CLUE_TOKENS:
        raise UsageError(f"bot guess: a clue is one or two words, not {len(words)}")
    if not 1 <= count <= len(ALL_CELLS):
        raise UsageError(f"bot guess: --count must be from 1 to {len(ALL_CELLS)}, not {count}")
    player = aim(level)
    tokens = [token for word in words for token in word.split()]
    try:
        concepts = player.knowledge.read(lang, tokens, child_only=player.child)
    except UnknownWord as exc:
        raise UsageError(f"bot guess: {exc.word!r} is not a word the {level} knows in {lang}") from None
    if not 1 <= len(concepts) <= 2:
        raise UsageError(f"bot guess: a clue is one or two words; {' '.join(words)!r} reads as {len(concepts)}")
    for cell in player.guess(concepts)[:count]:
        print(cell)
    return 0


def clue_main(lang: str, level: str, words_file: str | None, cell: str) -> int:
    try:
        target = parse_cell(cell)
    except RuleError as exc:
        raise UsageError(f"bot clue: {exc}") from None
    player = aim(level)
    if words_file is None:
        candidates = [c for c in player.knowledge.vocabulary(lang, child_only=player.child) if c.kind != "colour"]
        print(player.clue(candidates, target).word(lang))
        return 0
    said: dict[str, str] = {}  # concept id -> the file's first word for it
    for line in read_text(words_file, WORDS_FILE_LIMIT).splitlines():
        concept = player.lookup(lang, line) if line.strip() else None
        if concept is not None:
            said.setdefault(concept.id, line.strip())
    if not said:
        raise UsageError(f"bot clue: none of the words in {words_file} is one the {level} knows in {lang}")
    best = player.clue([player.knowledge.by_id[cid] for cid in said], target)
    print(said[best.id])
    return 0
