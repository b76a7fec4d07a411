"""`hues-console bot guess|clue|play`: what a computer player would do on an empty board, for checks
from outside (people's own guesses, a list of words to pick a clue from), and a whole game of them.

`guess` prints the cells a computer guesser would choose for a clue, best first, one a line;
`clue` prints the word a computer giver would say for a target cell, from a file's words (one a
line; the words it does not know are left out, and named in one line on standard error) or from
everything it knows but colour names, which the rules forbid. `play` plays a game
of computer players only, a line per round, and can write its record for `replay`.
"""

from __future__ import annotations

import sys

from console.bots.aim import aim
from console.bots.knowledge import UnknownWord
from console.bots.player import game_alone
from console.commands.common import UsageError, read_text, write_output
from console.game import rules
from console.game.board import ALL_CELLS, RuleError, parse_cell
from console.game.record import dumps_record
from console.game.rules import GameState

MAX_SEED = 2**31 - 1  # the console's own games draw their seeds below 2**31 (play.table)
WORDS_FILE_LIMIT = 1 << 20  # a word list of a megabyte is tens of thousands of words
MAX_CLUE_TOKENS = 8  # two words, a Vietnamese word being up to four syllables
UNKNOWN_NAMED, NAMED_LENGTH = 5, 40  # how many unknown words of a list the line that says so names, how much of each


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
    unknown: list[str] = []
    for line in read_text(words_file, WORDS_FILE_LIMIT).splitlines():
        concept = player.lookup(lang, line) if line.strip() else None
        if concept is not None:
            said.setdefault(concept.id, line.strip())
        elif line.strip():
            unknown.append(line.strip())
    if not said:
        raise UsageError(f"bot clue: none of the words in {words_file} is one the {level} knows in {lang}")
    if unknown:  # the answer stands; what it was chosen without is said beside it, in one line
        named = ", ".join(repr(word[:NAMED_LENGTH]) + ("..." if len(word) > NAMED_LENGTH else "")
                          for word in unknown[:UNKNOWN_NAMED])
        more = f" and {len(unknown) - UNKNOWN_NAMED} more" if len(unknown) > UNKNOWN_NAMED else ""
        print(f"bot clue: left out {len(unknown)} word(s) the {level} does not know in {lang}: {named}{more}",
              file=sys.stderr)
    best = player.clue([player.knowledge.by_id[cid] for cid in said], target)
    print(said[best.id])
    return 0


def play_main(players: int, seed: int, level: str, lang: str, variant: str, record_path: str | None) -> int:
    if not rules.MIN_PLAYERS <= players <= rules.MAX_PLAYERS:
        raise UsageError(f"bot play: --players must be from {rules.MIN_PLAYERS} to {rules.MAX_PLAYERS}, not {players}")
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"bot play: --seed must be from 0 to {MAX_SEED}, not {seed}")
    if record_path == "-":
        raise UsageError("bot play: --record needs a file (the rounds go to standard output)")
    actions = game_alone(players, seed, level, lang, variant)
    lines = [f"{players} computer players ({level}, {lang}), {variant} variant, seed {seed}"]
    state = None
    for action in actions:  # the record replayed, a line for each round as it is scored
        state = rules.apply(state, action)
        if state.phase == "round_over" and not isinstance(action, rules.Next):
            lines.append(round_line(state))
    if record_path is not None:  # written before anything is said: a path it cannot write is the one line
        write_output(record_path, dumps_record(actions))
    lines.append("scores: " + ", ".join(f"{color} {score}" for color, score in zip(state.colors, state.scores)))
    winners = [state.colors[seat] for seat in state.winners]
    lines.append(("winners: " if len(winners) > 1 else "winner: ") + ", ".join(winners))
    print("\n".join(lines))
    return 0


def round_line(state: GameState) -> str:
    """A scored round in one line: its giver, clues, target and each player's points."""
    kind = f"round {state.round} (tie-break)" if state.tiebreak else f"round {state.round}"
    clues = [f"\"{' '.join(clue.words)}\"" for clue in state.clues]  # a computer player writes its clues
    said = clues[0] + (f", then {clues[1]}" if len(clues) > 1 else ", then passes")
    points = ", ".join(f"{color} {p}" for color, p in zip(state.colors, state.last_round_points))
    return f"{kind}: {state.colors[state.giver]} gives {said}; target {state.target}; points {points}"

