"""Each board cell's colour named in a language, for guests who cannot tell the colours apart
(the phone's "name the colours" setting, console/web/colour_names.py).

The names are the computer players' own: the knowledge's colour concepts (`kind == "colour"`,
each with its colour in OKLab and its words in six languages). A cell is named by the concept
nearest to its colour in OKLab (`aim.BOARD_LAB`, the board as the panel shows it; a concept's
distance is its nearest colour's), except that a colour a child knows (`Concept.child`: red,
dark blue, light green...) is taken instead when it is at most `CHILD_MARGIN` farther: about the
smallest difference people see between two colours side by side, so a common word wins whenever
it is as good a name as anyone could tell, and the rarer one (teal, mauve, chartreuse) only where
the common words are visibly off (docs/PHONES.md has what that makes of the board).
"""

from __future__ import annotations

import math

from console.bots.aim import BOARD_LAB
from console.bots.knowledge import Concept, knowledge
from console.game.clue import LANGUAGES
from console.view.palette import Lab

# OKLab units: CSS Color 4's gamut mapping takes 0.02 as a just noticeable difference in OKLab.
CHILD_MARGIN = 0.02


def cell_colour_names(lang: str) -> tuple[str, ...]:
    """The 480 cells' colour names in `lang`, in cell order (`Cell.index`)."""
    if lang not in LANGUAGES:
        raise ValueError(f"no language {lang!r}")
    colours = [concept for concept in knowledge().concepts if concept.kind == "colour"]
    return tuple(nearest_name(colours, lab).word(lang) for lab in BOARD_LAB)


def nearest_name(colours: list[Concept], lab: Lab) -> Concept:
    """The colour concept that names `lab`: the nearest, or the nearest a child knows when it is at
    most CHILD_MARGIN farther (ties: the knowledge's order)."""
    nearest = min(colours, key=lambda concept: _distance(concept, lab))
    known = [concept for concept in colours if concept.child]
    common = min(known, key=lambda concept: _distance(concept, lab)) if known else nearest
    return common if _distance(common, lab) <= _distance(nearest, lab) + CHILD_MARGIN else nearest


def _distance(concept: Concept, lab: Lab) -> float:
    return min(math.dist(lab, colour) for colour, _ in concept.modes)
