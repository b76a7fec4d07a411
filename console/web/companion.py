"""The web companion as the console starts it: a hub the app loop publishes to, the phones' room,
and the server that serves their routes (and any other feature's route list)."""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable, Sequence

from console.config.schema import WebConfig
from console.web.hub import Hub
from console.web.phones import PhoneRoom
from console.web.seat_writer import SeatWriter
from console.web.limits import LIMITS, Attempts, Limits
from console.web.seats import SEATS_SETTING
from console.web.server import WebServer, build_web_app


class WebCompanion:
    """Built in the main thread before the loop runs (it reads the kept seats from the store);
    `start()` serves, `stop()` ends the server thread."""

    def __init__(self, config: WebConfig, events: Any, store: Any, *,
                 clock: Callable[[], float] = time.monotonic,
                 more_routes: Iterable[Callable[[Hub], Sequence]] = (), limits: Limits = LIMITS) -> None:
        self.hub = Hub()
        self.kept_seats = store.get_setting(SEATS_SETTING, None)  # the phones' seats from before a restart
        self.seats = SeatWriter(store)  # `save` keeps them after each change, never on the app's thread
        self.room = PhoneRoom(self.hub, events, Attempts(clock), config.host_pin, clock, limits=limits)
        self.asgi = build_web_app([self.room.routes(), *(routes(self.hub) for routes in more_routes)])
        self.server = WebServer(self.asgi, config.address, config.port, limits)

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> None:
        self.server.start()

    # As one of the app's input sources (phones are input): nothing to poll, since requests come
    # through the event queue, and closed with the others when the console stops.
    def poll(self, now: float) -> None:
        pass

    def next_poll(self, now: float) -> float:
        return math.inf

    def close(self) -> None:
        self.server.stop()
        self.seats.close()  # the last change is written: the store closes after its sources
