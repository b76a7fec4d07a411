"""Telling systemd how the console is: READY=1 at the first frame, WATCHDOG=1 while frames are
drawn, STATUS= for `systemctl status`. The service is Type=notify with WatchdogSec=, so a loop
that stops drawing is killed and restarted instead of leaving a frozen panel at the party.

The protocol is one datagram of newline-separated KEY=VALUE lines to the AF_UNIX socket named in
$NOTIFY_SOCKET (a leading "@" means the abstract namespace), as sd_notify(3) of systemd 252
describes; $WATCHDOG_USEC is the interval, meant for this process only when $WATCHDOG_PID is
unset or our pid. Twelve lines of socket code do not justify a dependency (sdnotify on PyPI has
had no release since 2017), and outside systemd (no $NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping

log = logging.getLogger("hues-console")


class SystemdNotifier:
    def __init__(self, environ: Mapping[str, str] = os.environ, pid: int | None = None):
        address = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        pid = os.getpid() if pid is None else pid
        usec = environ.get("WATCHDOG_USEC", "")
        for_us = environ.get("WATCHDOG_PID", str(pid)) == str(pid)
        # Pinged at half the interval, as sd_watchdog_enabled(3) advises.
        self.ping_every_s = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 and for_us else None
        self._last_ping: float | None = None
        self.ready = False
        self._warned = False

    def send(self, *lines: str) -> bool:
        """Send one notification; False (and one warning in the log) when it cannot be sent."""
        if not self.address:
            return False
        import socket  # only under systemd: not part of every start

        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto("\n".join(lines).encode(), self.address)
        except OSError as error:
            if not self._warned:
                log.warning("cannot notify systemd at %s: %s", os.environ.get("NOTIFY_SOCKET"), error)
                self._warned = True
            return False
        return True

    def next_ping(self) -> float:
        """When the watchdog's next ping is due, on the clock `frame_drawn` is given (inf: none is
        wanted, or READY has not been sent): the loop wakes for it even on a still screen."""
        if not self.ready or self.ping_every_s is None:
            return math.inf
        return self._last_ping + self.ping_every_s

    def frame_drawn(self, now: float, status: str = "") -> None:
        """Called after every frame the loop draws: READY=1 the first time, then watchdog pings."""
        if not self.ready:
            self.ready = True
            self._last_ping = now
            self.send("READY=1", *([f"STATUS={status}"] if status else []))
            return
        if self.ping_every_s is not None and now - self._last_ping >= self.ping_every_s:
            self._last_ping = now
            self.send("WATCHDOG=1")
