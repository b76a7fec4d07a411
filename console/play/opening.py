"""A game store made on a thread of its own, so that the first frame does not wait for the store's
library to load.

Importing redis-py (it imports its asyncio client as well) and fakeredis, then making the client,
took 0.1 s of a 0.3 s start here, about a second on a Pi Zero 2 W, and the first frame needs
nothing from a store that keeps nothing (`memory://`): no brightness, no last winners, no game
to resume. So the loop gets an `OpeningStore` at once and draws; the store is made meanwhile.
Until it is there it is online with nothing to say (`tick` does nothing), questions (`later`)
wait for it and are asked on the loop's thread once it is (a `Chore` on the event queue, as the
store's answers come), and anything else (a move stored, the web companion reading the seats)
waits for it. A store that can fail to open with a host's mistake (a Redis URL, a state
directory another console holds) is made before the loop starts instead, so the mistake is one
line at start.
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import Future
from typing import Any, Callable

from console.play.ports import Chore


class OpeningStore:
    """Stands for the store `make()` returns (made on a thread) while it is being made."""

    def __init__(self, make: Callable[[], Any], url: str, events: Any) -> None:
        self.url = url
        self._events = events
        self._opened: Future = Future()
        self._waiting: list[tuple[Callable[[Any], Any], Future]] = []  # questions asked before it opened
        self._changed: Callable[[], None] | None = None  # `watch`'s, passed on once it is made
        threading.Thread(target=self._open, args=(make,), name="store-open", daemon=True).start()

    def _open(self, make: Callable[[], Any]) -> None:
        try:
            self._opened.set_result(make())
        except BaseException as error:  # given to whoever uses the store
            self._opened.set_exception(error)
        self._events.put(Chore(lambda _: self._ask_waiting()))

    def _ask_waiting(self) -> None:
        """Under the loop's lock (a `Chore`), once made: the questions asked so far, asked of the store."""
        if self._changed is not None and self._made():
            self.opened.watch(self._changed)
        waiting, self._waiting = self._waiting, []
        for question, answer in waiting:
            try:
                asked = self._opened.result().later(question)
            except BaseException as error:
                answer.set_exception(error)
                continue
            asked.add_done_callback(lambda done, answer=answer: _pass_on(done, answer))

    @property
    def opened(self) -> Any:
        """The store itself, waiting for it to be made (its error if it could not be)."""
        return self._opened.result()

    def later(self, question: Callable[[Any], Any]) -> Future:
        if self._opened.done():
            return self.opened.later(question)
        answer: Future = Future()
        self._waiting.append((question, answer))
        return answer

    def tick(self, now: float) -> None:
        if self._made():
            self.opened.tick(now)

    def next_due(self) -> float:
        return self.opened.next_due() if self._made() else math.inf

    def watch(self, changed: Callable[[], None]) -> None:
        """As the store's `watch`, from when it is made (that news itself is the Chore above)."""
        self._changed = changed
        if self._made():
            self.opened.watch(changed)

    def _made(self) -> bool:
        return self._opened.done() and self._opened.exception() is None

    @property
    def online(self) -> bool:
        return not self._opened.done() or (self._made() and self.opened.online)

    @property
    def journal_ok(self) -> bool:
        return not self._opened.done() or (self._made() and self.opened.journal_ok)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.opened, name)


def _pass_on(done: Future, answer: Future) -> None:
    if done.cancelled():
        answer.cancel()
        return
    error = done.exception()
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(done.result())
