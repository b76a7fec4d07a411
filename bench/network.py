"""The network drivers' figures (`python -m bench network`): how long from a frame handed to the
panel to its last datagram at a receiver on loopback, and how many datagrams a second go out on
a still screen and while a player guesses, for ddp and e131 on the 32x16 panel.

- Latency: the busy game's guessing screen (10 players, 17 pawns: the dearest to draw) at each
  of its blink phases in turn, every frame a changed one, through `Panel.show` (output stage,
  layout, framing, the non-blocking sends); a receiver thread on loopback stamps the arrival of
  each frame's last datagram (perf_counter). What a real network adds (Wi-Fi: a few ms) is not
  in it: this is the console's share.
- Datagrams a second: the console itself (ConsoleApp, the driver sending to loopback) on a
  virtual clock it shares with the driver, woken only when its tick asks, as the real-time loop
  does: set-up (a still screen: only the keep-alive) and the busy game's guessing screen (the
  cursor's and the pawns' blink), SECONDS each.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time

from console.commands.measure_games import busy_game, percentile
from console.play.app import ConsoleApp
from console.store.games import GameStore
from console.view.render import render
from console.view.ui import Ui
from hal.drivers.ddp import DdpDriver
from hal.drivers.e131 import E131Driver
from hal.inputs.events import EventQueue
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage, Panel

FRAMES = 2000
SECONDS = 30.0
DRIVERS = {"ddp": DdpDriver, "e131": E131Driver}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _receiver() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
    sock.bind(("127.0.0.1", 0))
    return sock


def frame_to_packet(name: str, frames: int = FRAMES) -> dict:
    """Per changed frame: the time `Panel.show` takes, and from its call to the frame's last
    datagram received on loopback (ms: median, p99, max)."""
    layout = Layout(LayoutOptions())
    receiver = _receiver()
    driver = DRIVERS[name](layout.led_count, "127.0.0.1", port=receiver.getsockname()[1], http_port=0)
    per_frame = {"ddp": 2, "e131": 4}[name]
    arrivals: list[float] = []

    def receive() -> None:
        for n in range(frames * per_frame):
            receiver.recv(65536)
            if n % per_frame == per_frame - 1:
                arrivals.append(time.perf_counter())

    thread = threading.Thread(target=receive, daemon=True)
    thread.start()
    state, ui = busy_game()
    pictures = [render(state, ui, t) for t in (0.0, 0.26, 0.51, 0.76)]
    pictures = [p for i, p in enumerate(pictures) if p not in pictures[:i]]
    panel = Panel(OutputStage(layout), driver)
    starts, shows = [], []
    for n in range(frames):
        frame = pictures[n % len(pictures)].copy()
        frame.pixels[0] = n % 256  # every frame a changed one
        started = time.perf_counter()
        panel.show(frame)
        shows.append(time.perf_counter() - started)
        starts.append(started)
        while len(arrivals) <= n and thread.is_alive():  # one frame at a time: the next waits for this one
            time.sleep(0)
    thread.join(5)
    driver.close()
    receiver.close()
    latency = [arrived - started for started, arrived in zip(starts, arrivals)]
    return {"frames": len(latency), "datagrams_a_frame": per_frame,
            "show_ms": _summary(shows), "frame_to_last_datagram_ms": _summary(latency)}


def datagrams_a_second(name: str, screen: str, seconds: float = SECONDS) -> dict:
    """The console on `screen` ("setup": still; "guessing": the busy game) for `seconds` of a
    virtual clock, woken as its ticks ask: datagrams and frames a second, keep-alives among them."""
    layout = Layout(LayoutOptions())
    receiver = _receiver()
    receiver.setblocking(False)
    clock = Clock()
    driver = DRIVERS[name](layout.led_count, "127.0.0.1", port=receiver.getsockname()[1], http_port=0, clock=clock)
    app = ConsoleApp(OutputStage(layout), driver, EventQueue(), [driver], GameStore("memory://"))
    app.start(0.0)
    state, ui = busy_game() if screen == "guessing" else (None, Ui(screen="setup"))
    app.put_on(state, ui, 0.0)
    due, count = app.tick(0.0), 0
    while due <= seconds:
        clock.now = due
        due = app.tick(due)
    try:
        while True:
            receiver.recv(65536)
            count += 1
    except BlockingIOError:
        pass
    app.close()
    receiver.close()
    stats = driver.stats
    return {"datagrams_a_second": round(count / seconds, 2), "frames_a_second": round(stats.frames / seconds, 2),
            "keepalives_a_second": round(stats.keepalives / seconds, 2)}


def _summary(seconds: list[float]) -> dict:
    ms = [1000 * s for s in seconds]
    return {"median": round(statistics.median(ms), 3), "p99": round(percentile(ms, 99), 3), "max": round(max(ms), 3)}


def network_figures() -> dict:
    return {name: {"latency": frame_to_packet(name),
                   "still": datagrams_a_second(name, "setup"),
                   "guessing": datagrams_a_second(name, "guessing")} for name in DRIVERS}


def format_network(results: dict) -> str:
    lines = []
    for name, figures in results.items():
        latency = figures["latency"]
        lines.append(f"{name}: Panel.show {latency['show_ms']['median']} ms (p99 {latency['show_ms']['p99']}); "
                     f"frame to its last datagram on loopback {latency['frame_to_last_datagram_ms']['median']} ms "
                     f"(p99 {latency['frame_to_last_datagram_ms']['p99']}, max "
                     f"{latency['frame_to_last_datagram_ms']['max']}) over {latency['frames']} frames")
        for screen in ("still", "guessing"):
            f = figures[screen]
            lines.append(f"{name}, {screen}: {f['datagrams_a_second']} datagrams/s ({f['frames_a_second']} frames/s, "
                         f"{f['keepalives_a_second']} of them keep-alives)")
    return "\n".join(lines)
