"""What the app loop is given from outside, as small interfaces: its input sources, the requests
and chores other threads hand it, who hears of its states and frames, and how the box powers off. The loop (`app.ConsoleApp`) knows nothing
more of them, so the same loop runs on the box, in the simulators, under the tests and the
benchmark with other things plugged in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from console.game.board import RuleError
from console.game.rules import GameState
from console.play.intents import Intent, Player
from console.view.ui import Ui
from hal.frame import Frame


class InputSource(Protocol):
    def poll(self, now: float) -> None: ...

    def next_poll(self, now: float) -> float:
        """When `poll` must run again even if nothing is put on the queue (an auto-repeat
        falling due); inf when only the queue can bring anything."""


@dataclass(frozen=True)
class Request:
    """A player's intent from another thread (a phone's, from the web server), on the loop's
    queue: done through the same handler as the joystick's (`table.act`). `reply` is called in
    the loop's thread with None when it was done, else the refusal."""

    player: Player
    intent: Intent
    reply: Callable[[RuleError | None], None] = lambda why: None


@dataclass(frozen=True)
class Chore:
    """Work to be done with the loop's state, under its lock (in the loop's thread, or in the web
    server's before a phone's request): `run(store)`."""

    run: Callable[[Any], None]


class Publisher(Protocol):
    """Who hears of each new state and each frame pushed (the web companion's hub)."""

    def publish_state(self, game: GameState | None, ui: Ui, now: float) -> None: ...

    def publish_frame(self, frame: Frame, now: float) -> None: ...


@dataclass
class Shutdown:
    """Holding `button` for `hold_s` clears the panel, flushes the store and calls `poweroff`."""

    button: str = "start"
    hold_s: float = 5.0
    poweroff: Callable[[], None] | None = None  # None: disabled (the simulator)
