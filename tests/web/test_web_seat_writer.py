"""The phones' seats are kept in the store off the panel's loop: a take or leave is a journal fsync,
and seat churn from six connections made the loop's frame gaps 107 to 280 ms when it wrote them."""

from __future__ import annotations

import threading

from console.web.seat_writer import SeatWriter
from console.web.seats import SEATS_SETTING
from tests.phones import PhoneTable


class SlowStore:
    """A store whose setting writes wait until the test lets them go, noting each one."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str, object]] = []  # (thread, name, value)
        self.go = threading.Event()
        self.writing = threading.Event()

    def set_setting(self, name: str, value: object) -> None:
        self.writing.set()
        assert self.go.wait(5)
        self.written.append((threading.current_thread().name, name, value))


def test_a_burst_of_seat_changes_is_one_write_of_the_latest_from_the_writers_thread():
    store = SlowStore()
    writer = SeatWriter(store, every_s=0.0)
    writer.save([[0, "a"]])
    assert store.writing.wait(5)  # the first write is under way (its fsync, say) ...
    for seat in range(1, 100):  # ... while the seats change 99 times more
        writer.save([[seat, "b"]])
    store.go.set()
    writer.close()
    assert store.written == [("hues-seats", SEATS_SETTING, [[0, "a"]]), ("hues-seats", SEATS_SETTING, [[99, "b"]])]


def test_closing_writes_what_is_still_waiting():
    store = SlowStore()
    store.go.set()
    writer = SeatWriter(store, every_s=60.0)  # the next write is not due for a minute ...
    writer.save([[0, "a"]])
    writer.save([[1, "b"]])
    writer.close()  # ... but the console stops: it is written now
    assert store.written[-1][2] == [[1, "b"]]


def test_a_seat_taken_on_a_phone_is_kept_from_another_thread_than_the_loops():
    with PhoneTable() as table:
        kept, store = [], table.app.store
        real = store.set_setting

        def noting(name, value):
            kept.append((threading.current_thread(), name))
            real(name, value)

        store.set_setting = noting
        table.phone().join(table.code, 2)
        table.wait_until(lambda: (store.get_setting(SEATS_SETTING) or [[None]])[0][0] == 2)
        assert kept and all(name == SEATS_SETTING and thread is not table.thread for thread, name in kept)
