"""Where a guesser puts a pawn for a clue, and which word a giver says for a target.

People's picks for a concept are modelled as a spread around the concept's colours, in OKLab
(where equal distances look about equally different): a cell's weight falls off as a Gaussian of
how much farther it is from a colour than the board's nearest cell to that colour (the board has
no black, white or grey: for "coal" people pick among the darkest cells, not nowhere). Two clue
words describe one target, so their weights multiply.

A guesser picks the cell that scores the most points on average against that spread (3 on the
target, 2 inside the frame, 1 touching it: `rules.pawn_points`), which is not always the spread's
peak: between two likely cells it may stand in between. A giver says the word whose people's
picks score the most points against the target on average, allowing for its own doubt about
where people's colour for a word lies (`GIVER_DOUBT`): a narrow word just beside the target does
not win over a broader one on it merely for being narrow.

The giver's best words for each cell over its whole vocabulary are worked out ahead, when the
knowledge is built (`data/shortlists.tsv`, `shortlist_table`), so a decision reads a list instead of
weighing thousands of words; a test checks that the table is what this module computes.

Levels: the expert knows every word and sees each concept's colour; a child knows the words
flagged for children and sees each colour pulled halfway towards its basic colour (a banana is
just yellow) and more spread, so it aims less well.
"""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from console.bots import LEVELS
from console.bots.knowledge import Concept, Knowledge, KnowledgeError, knowledge
from console.game.board import ALL_CELLS, COLS, ROWS, Cell
from console.view.palette import Lab, board_colors, srgb_to_oklab

# The basic colour terms a child's eye pulls colours towards (ids in the knowledge).
BASIC_COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "grey", "black", "white")
CHILD_PULL = 0.5
CHILD_SPREAD = 1.5
# The giver's doubt about where people's colour for a word lies, one standard deviation in OKLab:
# how far two independent sources put the same colour name (docs/BOTS.md says how it was found).
GIVER_DOUBT = 0.048
# How many concepts, nearest to the target first, a giver weighs exactly when the shortlist has none
# of its candidates; how many words per cell the shortlist keeps.
GIVER_SHORTLIST = 160
SHORTLIST_LENGTH = 24

BOARD_LAB: tuple[Lab, ...] = tuple(srgb_to_oklab(rgb) for rgb in board_colors())
_BY_LIGHTNESS = sorted(range(len(BOARD_LAB)), key=lambda i: BOARD_LAB[i][0])
_CELLS = len(ALL_CELLS)


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
    """The knowledge seen by one level. A concept's sight and the sum of its weights over the board
    are worked out when first asked for and kept (a few numbers per concept); `shortlists`, when
    given, are the giver's best words per cell for this knowledge and level (`shortlist_table`)."""

    def __init__(self, knowledge: Knowledge, level: str,
                 shortlists: Mapping[Cell, tuple[str, ...]] | None = None) -> None:
        if level not in LEVELS:
            raise AimError(f"no level {level!r} (one of {', '.join(LEVELS)})")
        self.knowledge = knowledge
        self.level = level
        self.child = level == "child"
        self._prototypes = tuple(mode for cid in BASIC_COLOURS for mode, _ in knowledge.by_id[cid].modes)
        self._sights: dict[str, Sight] = {}
        self._totals: dict[tuple[str, float], float] = {}
        self.shortlists = shortlists
        self._shortlisted = frozenset(c.id for c in shortlist_vocabulary(knowledge, level))

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

    def log_weights(self, concept: Concept, doubt: float = 0.0) -> list[float]:
        """For every cell, the log of how strongly people's picks for `concept` go there (up to a
        constant); `doubt` widens the spread as an uncertain centre would."""
        sight = self.sight(concept)
        scale = -0.5 / (sight.spread * sight.spread + doubt * doubt)
        dist = math.dist
        if len(sight.modes) == 1:
            ((centre, _, near),) = sight.modes
            return [scale * (dist(lab, centre) - near) ** 2 for lab in BOARD_LAB]
        per_mode = [[math.log(share) + scale * (dist(lab, centre) - near) ** 2 for lab in BOARD_LAB]
                    for centre, share, near in sight.modes]
        logs = []
        for terms in zip(*per_mode):
            top = max(terms)
            logs.append(top + math.log(sum(math.exp(t - top) for t in terms)))
        return logs

    def log_weight(self, concept: Concept, lab: Lab, doubt: float = 0.0) -> float:
        """The log of how strongly people's picks for `concept` go to a cell of colour `lab`."""
        sight = self.sight(concept)
        scale = -0.5 / (sight.spread * sight.spread + doubt * doubt)
        terms = [math.log(share) + scale * (math.dist(lab, centre) - near) ** 2 for centre, share, near in sight.modes]
        top = max(terms)
        return top + math.log(sum(math.exp(t - top) for t in terms))

    def picks(self, concepts: Sequence[Concept], doubt: float = 0.0) -> list[float]:
        """Where people put a pawn for these clue words together: a probability per cell (every
        cell alike for no word)."""
        logs = self.log_weights(concepts[0], doubt) if concepts else [0.0] * _CELLS
        for concept in concepts[1:]:
            logs = [a + b for a, b in zip(logs, self.log_weights(concept, doubt))]
        top = max(logs)
        exp = math.exp
        weights = [exp(v - top) for v in logs]
        total = math.fsum(weights)
        return [w / total for w in weights]

    def guess(self, concepts: Sequence[Concept], occupied: Iterable[Cell] = ()) -> list[Cell]:
        """Every free cell, the most points expected against people's picks first."""
        expected = expected_points(self.picks(concepts))
        taken = set(occupied)
        order = sorted(range(_CELLS), key=lambda i: (-expected[i], i))
        return [ALL_CELLS[i] for i in order if ALL_CELLS[i] not in taken]

    def points_for(self, concept: Concept, target: Cell, doubt: float = 0.0) -> float:
        """The points a pawn placed where people would put it for `concept` scores on average;
        with `doubt`, as the giver expects it, unsure of people's colour for the word."""
        key = (concept.id, doubt)
        total = self._totals.get(key)
        if total is None:
            exp = math.exp
            total = self._totals[key] = math.fsum(exp(v) for v in self.log_weights(concept, doubt))
        return sum(points * math.exp(self.log_weight(concept, BOARD_LAB[cell.index], doubt))
                   for cell, points in scoring_window(target)) / total

    def clue(self, candidates: Sequence[Concept], target: Cell) -> Concept | None:
        """The candidate whose people's picks score the most against `target` as the giver expects
        it (`points_for` with `GIVER_DOUBT`); among equals the more specific, then the first id. None
        when there is no candidate. When every candidate is one the shortlists cover, the first of
        the target's shortlist among them is that word; otherwise (or when none is there) the
        candidates whose colours come nearest the target are weighed exactly."""
        if not candidates:
            return None
        if self.shortlists is not None and all(c.id in self._shortlisted for c in candidates):
            wanted = {c.id: c for c in candidates}
            for cid in self.shortlists[target]:
                if cid in wanted:
                    return wanted[cid]
        lab = BOARD_LAB[target.index]
        nearest = heapq.nsmallest(GIVER_SHORTLIST, candidates, key=lambda c: (
            min(math.dist(lab, centre) - near for centre, _, near in self.sight(c).modes), c.id))
        return min(nearest, key=lambda c: (-round(self.points_for(c, target, GIVER_DOUBT), 9),
                                           self.sight(c).spread, c.id))


def shortlist_vocabulary(knowledge: Knowledge, level: str) -> tuple[Concept, ...]:
    """The words a giver of `level` may pick from the whole of what it knows: every concept the
    level knows but colour names (the rules forbid the basic ones; the others are left to a given
    list)."""
    return tuple(c for c in knowledge.concepts if c.kind != "colour" and (c.child or level != "child"))


def shortlist_table(knowledge: Knowledge, level: str) -> dict[Cell, tuple[str, ...]]:
    """For every cell, the `SHORTLIST_LENGTH` concepts of `shortlist_vocabulary` a giver of `level`
    expects to score the most with there, in `Aim.clue`'s order (points, then the narrower, then
    the first id). Slow (every concept's points at every cell: seconds); `lexicon/build.py`
    writes it to `data/shortlists.tsv`."""
    player = Aim(knowledge, level)
    vocabulary = shortlist_vocabulary(knowledge, level)
    later = {cid: -rank for rank, cid in enumerate(sorted(c.id for c in vocabulary))}
    best: list[list[tuple[float, float, int, str]]] = [[] for _ in ALL_CELLS]
    for concept in vocabulary:
        spread = player.sight(concept).spread
        for heap, points in zip(best, expected_points(player.picks([concept], GIVER_DOUBT))):
            entry = (round(points, 9), -spread, later[concept.id], concept.id)
            if len(heap) < SHORTLIST_LENGTH:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    return {cell: tuple(e[3] for e in sorted(best[cell.index], reverse=True)) for cell in ALL_CELLS}


def shortlists_text(tables: Mapping[str, Mapping[Cell, tuple[str, ...]]]) -> str:
    lines = ["# The givers' best words per cell, built by lexicon/build.py with console/bots/aim.py's",
             "# shortlist_table (do not edit): level, cell, the concept ids best first.",
             "level\tcell\tconcepts"]
    for level in LEVELS:
        lines += [f"{level}\t{cell}\t{' '.join(tables[level][cell])}" for cell in ALL_CELLS]
    return "\n".join(lines) + "\n"


def parse_shortlists(text: str, knowledge: Knowledge) -> dict[str, dict[Cell, tuple[str, ...]]]:
    """`shortlists_text`'s text back, every id checked against the knowledge."""
    tables: dict[str, dict[Cell, tuple[str, ...]]] = {level: {} for level in LEVELS}
    named = {str(cell): cell for cell in ALL_CELLS}
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#") or line.startswith("level\t"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or fields[0] not in tables or fields[1] not in named:
            raise KnowledgeError(f"shortlists line {number}: not a level, a cell and ids")
        try:  # the knowledge's own strings, not a copy of each
            tables[fields[0]][named[fields[1]]] = tuple(knowledge.by_id[i].id for i in fields[2].split())
        except KeyError as exc:
            raise KnowledgeError(f"shortlists line {number}: {exc.args[0]!r} is no concept of the knowledge") from None
    if any(len(table) != _CELLS for table in tables.values()):
        raise KnowledgeError("shortlists: not every cell at every level")
    return tables


@functools.cache
def aim(level: str) -> Aim:
    """The shipped knowledge as `level` sees it, with its shortlists, made once per level."""
    if level not in LEVELS:
        raise AimError(f"no level {level!r} (one of {', '.join(LEVELS)})")
    return Aim(knowledge(), level, _shipped_shortlists()[level])


@functools.cache
def _shipped_shortlists() -> dict[str, dict[Cell, tuple[str, ...]]]:
    from importlib import resources

    text = resources.files("console.bots").joinpath("data", "shortlists.tsv").read_text("utf-8")
    return parse_shortlists(text, knowledge())


@functools.cache
def scoring_window(target: Cell) -> tuple[tuple[Cell, int], ...]:
    """The cells a pawn scores on for `target`, each with its points (3, 2 or 1)."""
    return tuple((ALL_CELLS[r * COLS + c], 3 - max(abs(r - target.row), abs(c - target.col)))
                 for r in range(max(0, target.row - 2), min(ROWS, target.row + 3))
                 for c in range(max(0, target.col - 2), min(COLS, target.col + 3)))


def expected_points(probabilities: Sequence[float]) -> list[float]:
    """For each cell, the points a pawn there scores on average when the target falls as
    `probabilities` say: the 5x5 sum plus the 3x3 sum plus the cell (3 on it, 2 inside the frame,
    1 touching it), cut at the board's edges, from a table of running sums."""
    width = COLS + 1
    sums = [0.0] * ((ROWS + 1) * width)  # sums[(r + 1) * width + c + 1]: the cells above-left, inclusive
    for r in range(ROWS):
        running = 0.0
        above, here = r * width, (r + 1) * width
        for c in range(COLS):
            running += probabilities[r * COLS + c]
            sums[here + c + 1] = sums[above + c + 1] + running
    expected = []
    for r in range(ROWS):
        top5, bottom5 = max(0, r - 2) * width, min(ROWS, r + 3) * width
        top3, bottom3 = max(0, r - 1) * width, min(ROWS, r + 2) * width
        for c in range(COLS):
            left5, right5 = max(0, c - 2), min(COLS, c + 3)
            left3, right3 = max(0, c - 1), min(COLS, c + 2)
            expected.append(sums[bottom5 + right5] - sums[top5 + right5] - sums[bottom5 + left5] + sums[top5 + left5]
                            + sums[bottom3 + right3] - sums[top3 + right3] - sums[bottom3 + left3] + sums[top3 + left3]
                            + probabilities[r * COLS + c])
    return expected
