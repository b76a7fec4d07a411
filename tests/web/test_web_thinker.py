"""The web's slow reads off its event loop (console/web/thinker.py): done on the thread given,
and a thread shut down as the box stops says so (`Stopping`) rather than failing in the route,
whether it was shut before the work was asked or while the work waited in its queue."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from console.web.thinker import Stopping, Thinker


def test_the_work_is_done_on_the_thread_given_and_its_answer_awaited():
    executor = ThreadPoolExecutor(1, thread_name_prefix="given")
    try:
        assert asyncio.run(Thinker(executor).run(lambda x: (x, threading.current_thread().name), 3)) == (3, "given_0")
    finally:
        executor.shutdown()


def test_a_thread_shut_down_says_the_box_is_stopping():
    executor = ThreadPoolExecutor(1)
    executor.shutdown()
    with pytest.raises(Stopping):
        asyncio.run(Thinker(executor).run(len, "abc"))


def test_work_waiting_in_the_queue_when_the_thread_shuts_down_says_the_box_is_stopping():
    executor = ThreadPoolExecutor(1)
    busy, release = threading.Event(), threading.Event()
    executor.submit(lambda: busy.set() or release.wait())  # the thread at a move of its own

    async def ask() -> None:
        waiting = asyncio.create_task(Thinker(executor).run(len, "abc"))
        await asyncio.to_thread(busy.wait)
        executor.shutdown(wait=False, cancel_futures=True)  # the console's close
        release.set()
        await waiting

    with pytest.raises(Stopping):
        asyncio.run(ask())


def test_a_task_cancelled_itself_is_cancelled_as_ever():
    executor = ThreadPoolExecutor(1)
    busy, release = threading.Event(), threading.Event()
    executor.submit(lambda: busy.set() or release.wait())

    async def ask() -> bool:
        waiting = asyncio.create_task(Thinker(executor).run(len, "abc"))
        await asyncio.to_thread(busy.wait)
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            return True
        finally:
            release.set()
        return False

    try:
        assert asyncio.run(ask())
    finally:
        executor.shutdown()
