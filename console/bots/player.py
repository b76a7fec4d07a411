"""A computer player's move at its turn: the rules action it takes, from what its seat may see.

`move(seen, seat, level, lang)` is a function of the game state it is given and nothing else, so
a record with computer players replays exactly and the same deal always gets the same play. The
caller gives a guesser the state without the round's secret (`seating.without_secret`): a
computer guesser cannot know the target, whatever this module did with it. The giver, the
round's one holder, is given the whole state.

- The giver chooses the target it can describe best (among the card's cells; in the free variant
  among a few cells drawn from the game's seed), says the first clue of one word that keeps
  every rule of the written-clue check in its language and that was not written in an earlier
  round (`GameState.said`), and after the first pawns either gives
  a second clue (one word, or two when the two best together say more) or passes: it passes when
  the second pawns are expected to bring a rival more points than the giver (the giver scores
  only the pawns inside the frame, and nothing in a tie-break).
- A guesser reads the round's written clues (both for its second pawn) with its knowledge and
  places its pawn where it expects the most points, never on a pawn. A clue it cannot read (said
  aloud, or no word it knows) leaves it to follow the pawns already down, or the board's middle.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from console.bots.aim import BOARD_LAB, GIVER_DOUBT, Aim, aim, expected_points, scoring_window, shortlist_vocabulary
from console.bots.knowledge import Concept, UnknownWord
from console.game import rules
from console.game.board import ALL_CELLS, COLS, ROWS, Cell
from console.game.clue import LANGUAGES, check_clue
from console.game.rules import Action, ChooseTarget, Clue, GameState, NewGame, Next, Place, SkipClue
from console.game.seating import without_secret

FREE_TARGETS = 8  # cells a giver of the free variant weighs for its target, drawn from the seed
SECOND_CANDIDATES = 6  # words of the target's shortlist a giver weighs for its second clue
CROWD_SPREAD = 1.5  # cells: how far from the pawns down a guesser that cannot read the clue looks


def move(seen: GameState, seat: int, level: str, lang: str) -> Action | None:
    """What the computer player of `level` in `seat` does now in `seen`: None when it is not its
    turn (or nothing is to be done by a player: a reveal moves on when the table says so)."""
    if rules.current_player(seen) != seat:
        return None
    player = aim(level)
    phase = seen.phase
    if phase == "choose_target":
        return ChooseTarget(best_target(player, seen, lang))
    if phase == "clue1":
        return first_clue(player, seen.target, lang, heard(player, seen))[1]
    if phase == "clue2":
        return second_clue(player, seen, lang)
    return Place(guess(player, seen), seat)


Mover = Callable[[GameState, int, str, str], Action | None]  # `move`'s shape


def game_alone(players: int, seed: int, level: str, lang: str, variant: str = "cards",
               mover: Mover = move) -> list[Action]:
    """The record of a whole game played by computer players in every seat: each guesser given the
    state without the round's secret, the reveal moved on as soon as it is scored. The same
    arguments always give the same game. `mover` is `move` but where the lab has a seat play
    otherwise, in the same games (`bench.bot_games`' random placer)."""
    computers = (rules.computer_entry(level, lang),) * players
    actions: list[Action] = [NewGame(players, seed, seed % players, variant, computers=computers)]
    game = rules.apply(None, actions[0])
    while not rules.is_terminal(game):
        seat = rules.current_player(game)
        if seat is None:
            action: Action = Next()
        else:
            action = mover(game if seat == game.giver else without_secret(game), seat, level, lang)
        actions.append(action)
        game = rules.apply(game, action)
    return actions


# --- the guesser --------------------------------------------------------------------------------


def read_clues(player: Aim, clues: Sequence[Clue]) -> tuple[Concept, ...]:
    """The concepts of the written clues that `player` knows: a word it does not know is left out."""
    concepts: list[Concept] = []
    for clue in clues:
        if not clue.written or clue.lang not in LANGUAGES:
            continue
        tokens = [token for word in clue.words for token in word.split()]
        while tokens:
            try:
                concepts += player.knowledge.read(clue.lang, tokens, child_only=player.child)
                break
            except UnknownWord as exc:
                tokens.remove(exc.word)
    return tuple(concepts)


def guess(player: Aim, seen: GameState) -> Cell:
    """The free cell where the pawn scores the most on average, as `player` reads the clues so far."""
    occupied = {pawn.cell for pawn in seen.pawns}
    concepts = read_clues(player, seen.clues)
    if concepts:
        return player.guess(concepts, occupied)[0]
    expected = expected_points(_crowd(seen))
    return min((cell for cell in ALL_CELLS if cell not in occupied), key=lambda c: (-expected[c.index], c.index))


def _crowd(seen: GameState) -> list[float]:
    """Where the pawns already down say the target is (every cell alike when none is)."""
    if not seen.pawns:
        weights = [math.exp(-((c.row - (ROWS - 1) / 2) ** 2 + (c.col - (COLS - 1) / 2) ** 2) / 200) for c in ALL_CELLS]
    else:
        scale = -0.5 / (CROWD_SPREAD * CROWD_SPREAD)
        weights = [sum(math.exp(scale * ((c.row - p.cell.row) ** 2 + (c.col - p.cell.col) ** 2)) for p in seen.pawns)
                   for c in ALL_CELLS]
    total = math.fsum(weights)
    return [w / total for w in weights]


# --- the giver ----------------------------------------------------------------------------------


def best_target(player: Aim, game: GameState, lang: str) -> Cell:
    """The cell among the card's (or, in the free variant, a few drawn from the seed) whose best
    clue is expected to score the most: the giver's points come from pawns near the target."""
    cells = game.card_cells or free_targets(game.seed, game.round)
    said = heard(player, game)
    scored = []
    for cell in cells:
        concept, _ = first_clue(player, cell, lang, said)
        scored.append((-round(player.points_for(concept, cell, GIVER_DOUBT), 9), cell.index, cell))
    return min(scored)[2]


def free_targets(seed: int, round_: int) -> tuple[Cell, ...]:
    """`FREE_TARGETS` distinct cells chosen by the game's seed and the round (a hash, so the
    same game always offers the same)."""
    cells: list[Cell] = []
    state = (seed * 1_000_003 + round_ * 7_919) & 0xFFFFFFFF
    while len(cells) < FREE_TARGETS:
        state = (state * 1_103_515_245 + 12_345) & 0x7FFFFFFF
        cell = ALL_CELLS[(state >> 8) % len(ALL_CELLS)]
        if cell not in cells:
            cells.append(cell)
    return tuple(cells)


def heard(player: Aim, game: GameState) -> frozenset[str]:
    """The concepts (ids) of the clues written in earlier rounds, whoever wrote them, which a giver
    does not say again (as a good player would not). A clue said aloud is not known to it."""
    return frozenset(concept.id for concept in read_clues(player, game.said))


def first_clue(player: Aim, target: Cell, lang: str, said: frozenset[str] = frozenset()) -> tuple[Concept, Clue]:
    """The giver's first clue: the best word for `target` it knows, not `said` before, that keeps
    every rule of the written-clue check in `lang` (one word, no colour name, no coordinate) and
    that reads back as the same concept. The target's shortlist first; else its whole vocabulary,
    best first."""
    for concept in _best_words(player, target):
        if concept.id in said:
            continue
        clue = _said(player, [concept], lang, second=False)
        if clue is not None:
            return concept, clue
    raise LookupError(f"no word the {player.level} knows in {lang} passes the clue check")  # the tests rule it out


def _best_words(player: Aim, target: Cell):
    """The words `player` would say for `target`, best first: its shortlist, then the rest."""
    listed = [player.knowledge.by_id[cid] for cid in player.shortlists[target]]
    yield from listed
    rest = [c for c in shortlist_vocabulary(player.knowledge, player.level) if c not in listed]
    while rest:
        best = player.clue(rest, target)
        yield best
        rest.remove(best)


def _said(player: Aim, concepts: Sequence[Concept], lang: str, *, second: bool) -> Clue | None:
    """The clue that says `concepts` in `lang`, if the clue check lets it through and every word
    reads back as its concept; None otherwise."""
    words = [concept.word(lang) for concept in concepts]
    if any(player.lookup(lang, word) is not concept for word, concept in zip(words, concepts)):
        return None
    verdict = check_clue(" ".join(words), lang, second=second)
    return rules.Clue(verdict.words, lang, checked=True) if verdict.ok else None


def second_clue(player: Aim, game: GameState, lang: str) -> Clue | SkipClue:
    """The second clue that helps the guessers most (one of the target's best words, or the two
    best together), or a pass when that clue is expected to give a rival more than the giver."""
    target = game.target
    first = read_clues(player, game.clues)
    said = heard(player, game)
    options: list[tuple[tuple[Concept, ...], Clue]] = []
    for concept in player.shortlists[target]:
        concept = player.knowledge.by_id[concept]
        if concept in first or concept.id in said:
            continue
        clue = _said(player, [concept], lang, second=True)
        if clue is not None:
            options.append(((concept,), clue))
        if len(options) == SECOND_CANDIDATES:
            break
    if len(options) >= 2:
        pair = options[0][0] + options[1][0]
        clue = _said(player, pair, lang, second=True)
        if clue is not None:
            options.append((pair, clue))
    if not options:
        return SkipClue()
    first_logs = _log_sum(player, first)
    best = None
    for concepts, clue in options:
        picks = _picks(first_logs, _log_sum(player, concepts))
        points = sum(p * picks[cell.index] for cell, p in scoring_window(target))
        in_frame = sum(picks[cell.index] for cell, p in scoring_window(target) if p >= 2)
        if best is None or points > best[0] + 1e-9:
            best = (points, in_frame, clue)
    points, in_frame, clue = best
    guessers = game.players - 1
    giver_gain = 0 if game.tiebreak else guessers * in_frame * (2 if game.players == 3 else 1)
    return clue if giver_gain > points else SkipClue()


def _log_sum(player: Aim, concepts: Sequence[Concept]) -> list[float]:
    logs = [0.0] * len(BOARD_LAB)
    for concept in concepts:
        logs = [a + b for a, b in zip(logs, player.log_weights(concept, GIVER_DOUBT))]
    return logs


def _picks(*logs: list[float]) -> list[float]:
    together = [sum(values) for values in zip(*logs)]
    top = max(together)
    weights = [math.exp(v - top) for v in together]
    total = math.fsum(weights)
    return [w / total for w in weights]

