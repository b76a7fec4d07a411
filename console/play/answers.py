"""The frame loop's questions to the store (the brightness kept, the last games, a game to resume,
the attract loop's record), answered off the loop's thread.

A read of Redis can wait for seconds (a stalled SD card, a Redis loading its data): asked on the
loop's thread it froze the panel, and at start it hid the stored game. So each question goes to
the store's writer thread (`store.later`), and its answer is handed to its handler with the
loop's state once it is there: a `Chore` on the event queue, done under the loop's lock (in its
thread, or in the web server's when a phone's request comes first), wakes the loop for it.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, wait
from typing import Any, Callable

from console.game import rules
from console.game.record import action_from_json
from console.game.rules import GameState, RuleError
from console.play.ports import Chore
from console.store.format import StoreError, summary_of
from console.view.timeline import Timeline, stored_timeline

log = logging.getLogger("hues-console")


class StoreAnswers:
    """Questions in flight, one per name; `settle` hands each arrived answer to its handler."""

    def __init__(self, store: Any, events: Any):
        self.store = store
        self.events = events
        self._pending: dict[str, tuple[Future, Callable[[Any], None]]] = {}

    def ask(self, name: str, question: Callable[[Any], Any], handler: Callable[[Any], None]) -> None:
        """Ask `question(store)` unless `name` is asked already; `handler(answer)` runs in the
        loop's thread (at once when the store answered at once: the memory store)."""
        if name in self._pending:
            return
        future = self.store.later(question)
        self._pending[name] = (future, handler)
        if future.done():
            self.settle()
        else:
            future.add_done_callback(lambda _: self.events.put(Chore(lambda store: self.settle())))

    def asking(self, name: str) -> bool:
        return name in self._pending

    def wait(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for the questions in flight, then settle those answered (at start:
        a healthy Redis answers in milliseconds, and the first frame is then the right one)."""
        wait([future for future, _ in self._pending.values()], timeout=timeout_s)
        self.settle()

    def settle(self) -> None:
        for name, (future, handler) in list(self._pending.items()):
            if not future.done():
                continue
            del self._pending[name]
            if future.cancelled():
                continue
            error = future.exception()
            if error is not None:
                log.warning("the game store could not answer (%s: %s)", name, error)
                continue
            handler(future.result())


# --- the questions -------------------------------------------------------------------------------

def last_finished(store: Any) -> dict:
    """The history entry of the last finished game, {} when there is none (a question for the
    store's thread: it reads Redis)."""
    return next((g for g in store.history(10) if g.get("status") == "finished"), {})


def last_reveals(store: Any) -> Timeline | None:
    """The last finished game's reveals, for the idle board's attract loop (a question for the
    store's thread): read when first wanted, not at start or as a game ends. None when there is
    none, the store cannot give it or its record cannot be replayed (the board then only glints)."""
    game_id = last_finished(store).get("game_id")
    if game_id is None:
        return None
    try:
        return stored_timeline(store.export(game_id)).reveals()
    except (StoreError, RuleError) as exc:
        log.warning("no attract loop: the last game %s cannot be replayed (%s)", game_id, exc)
        return None


def replay_prefix(record: list[dict]) -> tuple[GameState | None, int, str | None]:
    """The state the longest replayable prefix of `record` reaches, its length, and why the next
    action was refused (None: all of it replays)."""
    game = None
    for done, obj in enumerate(record):
        try:
            game = rules.apply(game, action_from_json(obj))
        except (RuleError, ValueError) as exc:  # ValueError: a cell like "H²" (int() of a digit)
            return game, done, f"action {done + 1} of the record: {exc}"
    return game, len(record), None


def resumable(store: Any, found: tuple[str, list[dict]]) -> tuple[GameState, list[dict]] | None:
    """The store's unfinished game `found` (its id and record) to offer for resume: its state and
    record as far as the rules replay it, the store kept so (a record refused from its first
    action is set aside, one refused part-way is cut back there, one that replays to its end is
    finished). None when nothing is left to offer."""
    game_id, record = found
    game, replayed, problem = replay_prefix(record)
    if game is None:
        log.warning("the stored game %s cannot be replayed (%s); starting fresh", game_id, problem)
        store.set_aside(game_id, problem)
        return None
    if problem is not None:
        store.cut_back(replayed, problem)
        record = record[:replayed]
    if rules.is_terminal(game):
        store.finish(summary_of(game))
        return None
    return game, record
