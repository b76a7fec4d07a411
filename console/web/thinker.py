"""Where the web has slow reads done, off its event loop: the computer players' thread in the
console (`ConsoleApp.computers`), which reads the knowledge and the clue check's word lists for
them too, so each is read once and never twice at the same time; the loop's default workers
where there is no console (a web companion on its own, in tests).

The reads queue behind the computer players' moves on that one thread (milliseconds each), and
their moves behind the reads (each at most once a language): a move comes at a person's pace
anyway (`play/computers.py`).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from typing import Callable, TypeVar

T = TypeVar("T")


class Stopping(Exception):
    """The thread was shut down (the box is stopping): what was asked of it will not be done."""


class Thinker:
    def __init__(self, executor: Executor | None = None) -> None:
        self.executor = executor  # None: the loop's default workers

    async def run(self, work: Callable[..., T], *args) -> T:
        """`work(*args)` on the thread, awaited; Stopping when the thread has shut down or shuts
        down before it is done (a task cancelled itself is cancelled as ever)."""
        loop = asyncio.get_running_loop()
        try:
            pending = loop.run_in_executor(self.executor, work, *args)
        except RuntimeError:  # an executor shut down refuses new work
            raise Stopping() from None
        try:
            return await pending
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise
            raise Stopping() from None  # its work was cancelled as the executor shut down
