"""What the panel shows at a time, drawn ahead: the attract loop's frames on an idle board left
alone long enough, else the renderer's.

A still screen that changes by itself (a blink, the glint, the attract loop's steps) wakes the
loop at each change, and after a sleep the caches are cold: a frame drawn then costs many times
one drawn straight after another. So the frames come from a `Reel` drawn while neither the
states nor the attract loop change: one frame after a change (a press costs no frames drawn for
nothing), then twice as many each time the states outlast the reel, up to REEL_MOST, and a
wake-up only looks its frame up. The attract loop's record is asked of the store when the idle
board first wants it, never at start or as a game ends; when the box has no game to show (a fresh
box), the computer players play one alone.
"""

from __future__ import annotations

import math

from console.game.rules import GameState
from console.play.answers import StoreAnswers, last_reveals
from console.play.computers import Computers
from console.view.moment import Reel
from console.view.render import render_timed
from console.view.timeline import ATTRACT_AFTER_S, Timeline, attract_timed
from console.view.ui import Ui
from hal.frame import Frame

REEL_MOST = 16  # frames drawn ahead at most: 5.3 s of the guessing screen's blinks


class Pictures:
    """The frames for one panel size, and the last finished game's reveals for the attract loop."""

    def __init__(self, width: int, height: int, answers: StoreAnswers, computers: Computers) -> None:
        self.width, self.height = width, height
        self.answers, self.computers = answers, computers
        self.attract: Timeline | None = None  # the last finished game's reveals, for the idle board
        self.attract_due = True  # read them when the idle board first wants them
        self._asked_computers = False  # for a game of their own, when no game has ended on the box
        self._drawn: tuple | None = None  # (game, ui, idle since, attract, Reel): what was drawn from what

    def game_ended(self) -> None:
        """A game has just ended: its reveals are the attract loop's next, once the board idles."""
        self.attract, self.attract_due = None, True

    def at(self, game: GameState | None, ui: Ui, idle_since: float | None, now: float) -> tuple[Frame, float]:
        """The frame at `now` and when it can next change; `idle_since`: since when the idle board
        has been left alone (None: another screen)."""
        drawn, count = self._drawn, 1
        if (drawn is not None and drawn[0] is game and drawn[1] is ui and drawn[2] == idle_since
                and drawn[3] is self.attract):
            shown = drawn[4].at(now)
            if shown is not None:
                return shown
            count = min(REEL_MOST, 2 * len(drawn[4]))
        end = math.inf
        if idle_since is not None and self.attract_due:
            if now - idle_since >= ATTRACT_AFTER_S:
                self.attract_due = False
                lang = ui.setup.lang  # a game of computer players is played in the set-up's language
                self.answers.ask("attract", last_reveals, lambda reveals: self._got_reveals(reveals, lang))
            else:
                end = idle_since + ATTRACT_AFTER_S
        attract, width, height = self.attract, self.width, self.height  # a store that answers at once has answered

        def draw(t: float) -> tuple[Frame, float]:
            frame, until = None, math.inf
            if idle_since is not None and attract is not None:
                frame, until = attract_timed(attract, ui, t, idle_since, width, height)
            if frame is None:
                frame, drawn_until = render_timed(game, ui, t, width, height)
                until = min(until, drawn_until)
            return frame, until

        reel = Reel(draw, now, count, end)
        self._drawn = (game, ui, idle_since, attract, reel)
        return reel.pictures[0], reel.untils[0]

    def _got_reveals(self, reveals: Timeline | None, lang: str) -> None:
        """The last game's reveals; when the box has none to show, a game the computer players
        play alone (worked out on their thread), once."""
        if self.attract_due:  # a game ended since it was asked: that one's come next
            return
        if reveals is None and not self._asked_computers:
            self._asked_computers = True
            self.computers.game_alone(lang, lambda alone: self._got_reveals(alone, lang))
            return
        self.attract = reveals
