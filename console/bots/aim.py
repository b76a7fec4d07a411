"""Where a guesser puts a pawn for a clue, and which word a giver says for a target.

People's picks for a concept are modelled as a spread around the concept's colours, in OKLab
(where equal distances look about equally different): a cell's weight falls off as a Gaussian of
how much farther it is from a colour than the board's nearest cell to that colour (the board has
no black, white or grey: for "coal" people pick among the darkest cells, not nowhere). Two clue
words describe one target, so their weights multiply.

A guesser picks the cell that scores the most points on average against that spread (3 on the
target, 2 inside the frame, 1 touching it: `rules.pawn_points`), which is not always the spread's
peak: between two likely cells it may stand in between. A giver says the word whose people's
picks score the most points against the target on average; a specific word (a small spread) wins
over a broad one that is as close.

Levels: the expert knows every word and sees each concept's colour; a child knows the words
flagged for children and sees each colour pulled halfway towards its basic colour (a banana is
just yellow) and more spread, so it aims less well.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from console.bots.knowledge import Concept, Knowledge, knowledge
from console.game.board import ALL_CELLS, COLS, ROWS, Cell, distance
from console.view.palette import Lab, board_colors, srgb_to_oklab

LEVELS = ("child", "expert")
# The basic colour terms a child's eye pulls colours towards (ids in the knowledge).
BASIC_COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "grey", "black", "white")
CHILD_PULL = 0.5
CHILD_SPREAD = 1.5
# Points by Chebyshev distance from the target (rules.pawn_points).
POINTS = (3, 2, 1)
# How many concepts, nearest to the target first, a giver weighs exactly.
GIVER_SHORTLIST = 160

BOARD_LAB: tuple[Lab, ...] = tuple(srgb_to_oklab(rgb) for rgb in board_colors())
_BY_LIGHTNESS = sorted(range(len(BOARD_LAB)), key=lambda i: BOARD_LAB[i][0])


class AimError(ValueError):
    """A question the aim cannot answer (an unknown level): one line naming it."""


@dataclass(frozen=True)
class Sight:
    """A concept as one level sees it: its modes (OKLab, share, the board's nearest distance to it)
    and its spread."""

    modes: tuple[tuple[Lab, float, float], ...]
    spread: float


def nearest_distance(lab: Lab) -> float:
    """The OKLab distance from `lab` to the board's nearest cell. Cells are scanned outward in
    lightness from `lab`'s, stopping when lightness alone is farther than the best so far."""
    lightness = lab[0]
    lo = _bisect_lightness(lightness)
    best = math.inf
    left, right = lo - 1, lo
    while left >= 0 or right < len(_BY_LIGHTNESS):
        gap_left = lightness - BOARD_LAB[_BY_LIGHTNESS[left]][0] if left >= 0 else math.inf
        gap_right = BOARD_LAB[_BY_LIGHTNESS[right]][0] - lightness if right < len(_BY_LIGHTNESS) else math.inf
        if min(gap_left, gap_right) >= best:
            break
        if gap_left <= gap_right:
            best = min(best, math.dist(lab, BOARD_LAB[_BY_LIGHTNESS[left]]))
            left -= 1
        else:
            best = min(best, math.dist(lab, BOARD_LAB[_BY_LIGHTNESS[right]]))
            right += 1
    return best


def _bisect_lightness(lightness: float) -> int:
    lo, hi = 0, len(_BY_LIGHTNESS)
    while lo < hi:
        mid = (lo + hi) // 2
        if BOARD_LAB[_BY_LIGHTNESS[mid]][0] < lightness:
            lo = mid + 1
        else:
            hi = mid
    return lo


class Aim:
    """The knowledge seen by one level: a concept's sight and its normalised weights over the
    board are worked out when first asked for and kept (a few thousand floats per concept used)."""

    def __init__(self, knowledge: Knowledge, level: str) -> None:
        if level not in LEVELS:
            raise AimError(f"no level {level!r} (one of {', '.join(LEVELS)})")
        self.knowledge = knowledge
        self.level = level
        self.child = level == "child"
        self._prototypes = tuple(mode for cid in BASIC_COLOURS for mode, _ in knowledge.by_id[cid].modes)
        self._sights: dict[str, Sight] = {}
        self._normalisers: dict[str, float] = {}

    def lookup(self, lang: str, word: str) -> Concept | None:
        return self.knowledge.lookup(lang, word, child_only=self.child)

    def sight(self, concept: Concept) -> Sight:
        found = self._sights.get(concept.id)
        if found is None:
            modes = []
            for lab, share in concept.modes:
                if self.child:
                    prototype = min(self._prototypes, key=lambda p: math.dist(p, lab))
                    lab = tuple(v + CHILD_PULL * (p - v) for v, p in zip(lab, prototype))
                modes.append((lab, share, nearest_distance(lab)))
            spread = concept.spread * (CHILD_SPREAD if self.child else 1.0)
            found = self._sights[concept.id] = Sight(tuple(modes), spread)
        return found

    def log_weight(self, concept: Concept, lab: Lab) -> float:
        """The log of how strongly people's picks for `concept` go to a cell of colour `lab`."""
        sight = self.sight(concept)
        two_var = 2 * sight.spread * sight.spread
        terms = [math.log(share) - (math.dist(lab, centre) - near) ** 2 / two_var
                 for centre, share, near in sight.modes]
        top = max(terms)
        return top + math.log(sum(math.exp(t - top) for t in terms))

    def picks(self, concepts: Sequence[Concept]) -> list[float]:
        """Where people put a pawn for these clue words together: a probability per cell."""
        logs = [sum(self.log_weight(c, lab) for c in concepts) for lab in BOARD_LAB]
        top = max(logs)
        weights = [math.exp(v - top) for v in logs]
        total = sum(weights)
        return [w / total for w in weights]

    def guess(self, concepts: Sequence[Concept], occupied: Iterable[Cell] = ()) -> list[Cell]:
        """Every free cell, the most points expected against people's picks first."""
        expected = expected_points(self.picks(concepts))
        taken = set(occupied)
        order = sorted(range(len(ALL_CELLS)), key=lambda i: (-expected[i], i))
        return [ALL_CELLS[i] for i in order if ALL_CELLS[i] not in taken]

    def points_for(self, concept: Concept, target: Cell) -> float:
        """The points a pawn placed where people would put it for `concept` scores on average."""
        normaliser = self._normalisers.get(concept.id)
        if normaliser is None:
            normaliser = self._normalisers[concept.id] = math.fsum(
                math.exp(self.log_weight(concept, lab)) for lab in BOARD_LAB)
        return sum(POINTS[distance(cell, target)] * math.exp(self.log_weight(concept, BOARD_LAB[cell.index]))
                   for cell in _window(target)) / normaliser

    def clue(self, candidates: Sequence[Concept], target: Cell) -> Concept | None:
        """The candidate whose people's picks score the most against `target`; among equals the
        more specific. None when there is no candidate. Only the candidates whose colours come
        nearest the target (beyond the board's nearest cell) are weighed exactly."""
        if not candidates:
            return None
        lab = BOARD_LAB[target.index]
        shortlist = sorted(candidates, key=lambda c: (min(math.dist(lab, centre) - near
                                                          for centre, _, near in self.sight(c).modes), c.id))
        best = max(shortlist[:GIVER_SHORTLIST], key=lambda c: (round(self.points_for(c, target), 9),
                                                                -self.sight(c).spread))
        return best


@functools.cache
def aim(level: str) -> Aim:
    """The shipped knowledge as `level` sees it, made once per level."""
    if level not in LEVELS:
        raise AimError(f"no level {level!r} (one of {', '.join(LEVELS)})")
    return Aim(knowledge(), level)


def _window(target: Cell) -> tuple[Cell, ...]:
    return tuple(ALL_CELLS[r * COLS + c]
                 for r in range(max(0, target.row - 2), min(ROWS, target.row + 3))
                 for c in range(max(0, target.col - 2), min(COLS, target.col + 3)))


def expected_points(probabilities: Sequence[float]) -> list[float]:
    """For each cell, the points a pawn there scores on average when the target falls as
    `probabilities` say (a 5x5 sum, cut at the board's edges)."""
    return [sum(POINTS[distance(cell, other)] * probabilities[other.index] for other in _window(cell))
            for cell in ALL_CELLS]
