"""The computer players at the table: each holds its seat (`seating.computer_holder`) and acts
through the same intents and handler as a person, on the app's queue.

After each change the loop tells `Computers` the state (`consider`). The knowledge loads on a
thread of its own as soon as a game with computer players starts (seconds on a Pi Zero), and when
a computer player is to act its move (`bots.player.move`) is worked out there too, never on the
loop's thread: milliseconds. The move is done as `Request`s once it is ready and a person could
have followed: `PACE_S` after the turn began (`FAST_PACE_S` when the host asked for quicker
computers), a guesser's cursor on its cell half way there, and never while a written clue's words
still fill the panel; so when a move comes says nothing of how long it took to work out. A guesser
is given the state without the round's secret (`seating.without_secret`); only the round's holder
sees the target. A move worked out for a state that has since changed is dropped, and the new
state considered.
"""

from __future__ import annotations

import logging
import math
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, Callable

from console.game import rules
from console.game.clue import prepare
from console.game.rules import GameState
from console.game.seating import computer_holder, is_computer, without_secret
from console.play import intents
from console.play.intents import Intent, Player
from console.play.ports import Chore, Request
from console.view.timeline import Timeline, replay_timeline
from console.view.ui import Ui

log = logging.getLogger("hues-console")
PACE_S = 2.0  # after its turn began, a computer player acts: time to see whose turn it is
FAST_PACE_S = 0.6
ACTING_SCREENS = ("handoff", "play")  # a menu, the resume question or set-up: the computers wait
ALONE_PLAYERS, ALONE_SEED = 5, 1  # the game computer players play alone for the attract loop


class Computers:
    """The move being worked out, or its steps waiting for their time, for one state of the game."""

    def __init__(self, events: Any, thinker: Executor | None = None) -> None:
        self.events = events
        self.thinker = thinker or ThreadPoolExecutor(1, thread_name_prefix="computer-player")
        self._for: tuple = ()  # (game, secret holder, seat) the move is for; () for none
        self._turn_began = 0.0
        self._player: Player | None = None
        self._steps: list[tuple[float, tuple[Intent, ...]]] = []  # (share of the pace, intents) still to do
        self._knowing: set[tuple[str, str]] = set()  # the (level, language)s whose knowledge was asked to load

    def consider(self, game: GameState | None, ui: Ui, now: float) -> None:
        """Start working out the move of the computer player whose turn it is in `game`, if one's
        is and it is not under way already."""
        seated = map(game.computer, range(game.players)) if game is not None else ()
        for computer in {computer for computer in seated if computer is not None}:
            if computer not in self._knowing:  # loaded as they sit, before their first turn (seconds on a Pi)
                self._knowing.add(computer)
                self.thinker.submit(_know, *computer)
        seat = _computer_to_act(game, ui)
        key = () if seat is None else (game, ui.seating.secret, seat)
        if key == self._for:
            return
        self._for, self._steps, self._turn_began = key, [], now
        if seat is None:
            return
        if ui.clue_screen:  # a written clue's words fill the panel: its turn begins when they are read
            self._turn_began = max(now, ui.clue_ends())
        level, lang = game.computer(seat)
        seen = game if ui.seating.holds_secret(computer_holder(seat)) else without_secret(game)
        future = self.thinker.submit(_think, seen, seat, level, lang)
        future.add_done_callback(lambda done: self.events.put(Chore(lambda store: self._arrived(key, done))))

    def _arrived(self, key: tuple, done: Future) -> None:
        if key != self._for or done.cancelled():
            return
        error = done.exception()
        if error is not None:
            log.error("a computer player could not work out its move: %s: %s", type(error).__name__, error)
            return
        action = done.result()
        if action is not None:
            seat = key[2]
            self._player, self._steps = Player(computer_holder(seat), seat), steps_of(action)

    def due(self, ui: Ui) -> float:
        """When the next step of the move worked out is to be done; inf when none is ready."""
        if not self._steps:
            return math.inf
        pace = FAST_PACE_S if ui.fast_computers else PACE_S
        return self._turn_began + self._steps[0][0] * pace

    def take(self, ui: Ui, now: float) -> list[Request]:
        """The requests of the steps due by `now` (each once)."""
        requests = []
        while self._steps and now >= self.due(ui):
            _, wanted = self._steps.pop(0)
            requests += [Request(self._player, intent, _refused(intent)) for intent in wanted]
        return requests

    def game_alone(self, lang: str, handler: Callable[[Timeline], None]) -> None:
        """Play a game of computer players alone on their thread (the idle board's attract loop
        when no game has ended on the box yet); `handler(its reveals)` runs in the loop's thread."""
        future = self.thinker.submit(_alone, lang)
        future.add_done_callback(lambda done: self.events.put(Chore(lambda store: _handed(done, handler))))

    def close(self) -> None:
        self.thinker.shutdown(wait=False, cancel_futures=True)


# The computer players' modules are imported on their thread, the first time a game has them: the
# board's colours in OKLab and the knowledge are theirs, and a console without computer players
# never pays for them at its start.
def _know(level: str, lang: str) -> None:
    from console.bots.aim import aim
    aim(level)
    prepare(lang)  # the clue check's word lists in the language they write in


def _think(seen: GameState, seat: int, level: str, lang: str) -> rules.Action | None:
    from console.bots.player import move
    return move(seen, seat, level, lang)


def _alone(lang: str) -> Timeline:
    from console.bots.player import game_alone
    return replay_timeline(game_alone(ALONE_PLAYERS, ALONE_SEED, "expert", lang)).reveals()


def _handed(done: Future, handler: Callable[[Timeline], None]) -> None:
    if not done.cancelled() and done.exception() is None:
        handler(done.result())
    elif not done.cancelled():
        log.error("the computer players' game could not be played: %s", done.exception())


def _computer_to_act(game: GameState | None, ui: Ui) -> int | None:
    """The seat of the computer player whose turn it is, when the table is at a turn."""
    if game is None or rules.is_terminal(game) or ui.screen not in ACTING_SCREENS or ui.menu_return is not None:
        return None
    seat = rules.current_player(game)
    if seat is None or not is_computer(ui.seating.holder(seat)):
        return None
    if seat == game.giver and not ui.seating.holds_secret(computer_holder(seat)):
        return None  # a round dealt to someone else (redealt as the seat changes hands), or its binding lost
    return seat


def steps_of(action: rules.Action) -> list[tuple[float, tuple[Intent, ...]]]:
    """The intents a computer player makes for a move, each with the share of the pace after
    which it comes: a guesser points at its cell half way (the table sees where it is going),
    then places its pawn, which stands at once."""
    if isinstance(action, rules.ChooseTarget):
        return [(1.0, (intents.ChooseTarget(action.cell),))]
    if isinstance(action, rules.Clue):
        return [(1.0, (intents.GiveClue(" ".join(action.words), action.lang),))]
    if isinstance(action, rules.SkipClue):
        return [(1.0, (intents.Pass(),))]
    return [(0.5, (intents.PointAt(action.cell),)), (1.0, (intents.Place(action.cell), intents.Confirm()))]


def _refused(intent: Intent) -> Callable[[rules.RuleError | None], None]:
    def reply(why: rules.RuleError | None) -> None:
        if why is not None:
            log.warning("a computer player's %s was refused: %s", type(intent).__name__, why)
    return reply
