"""The lab's runs with the console in a process of its own, as on the box: the still screens' CPU
here; `bench.phones` taps phones in another process, `bench.budget` runs the console in a CPU
quota (a Pi Zero 2 W's budget) and times its garbage collection.

The measured process is only the console (its loop, its web server); the phones, the anchor
server and the bench are other processes, so their work is neither counted nor shares its GIL.
CPU is the child's own (getrusage over a window, once the screen has gone round its pictures
twice: `still_settle_s`), taken twice per screen (a range); the anchor for a still screen is a
bare 60 Hz wait loop measured in the same run. Every child is started with
`python -m bench.processes ROLE ...` in the checkout.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import threading
import time
from dataclasses import replace

from bench import CHECKOUT

SETTLE_S = 1.0
WAIT_S = 10.0
STILL_SCREENS = ("idle", "guessing", "secret choice", "clue", "attract", "scoreboard", "game over", "brightness")


# --- the console as a child ----------------------------------------------------------------------


def serve_console(screen: str, web: bool, notify: str | None) -> None:
    """In the child: the console on `screen`, its loop in this (main) thread; prints its address
    and room code; then answers `cpu` (this process's CPU and clock), `late` (how late its
    time-driven frames reached the panel) and `gc` (`collection_times`) on stdin, and stops at
    the end of stdin."""
    from console.commands.measure_games import started_app
    from console.play.loop import freeze_start_up, run_realtime

    app = started_app()
    shown: list[tuple[float, object, object, object]] = []
    show = app.panel.show

    def timed_show(frame, private=False, brightness=None):  # when each frame reached the driver, and what it was drawn from
        sent = show(frame, private, brightness)
        if sent:
            shown.append((time.monotonic(), frame, app.game, app.ui))
        return sent

    app.panel.show = timed_show
    put_on_screen(app, screen, time.monotonic())
    url = code = ""
    if web:
        from console.commands.measure_phone import open_to_phones

        companion = open_to_phones(app)
        url, code = companion.url, app.ui.room_code
    if notify:
        from console.play.sd_notify import SystemdNotifier

        app.notifier = SystemdNotifier({"NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "2000000"})
    from console.game.rules import current_player

    guesser = current_player(app.game) if app.game is not None else None
    giver = app.game.giver if app.game is not None else None
    print(json.dumps({"url": url, "code": code, "guesser": guesser, "giver": giver, "cpus": usable_cpus()}), flush=True)

    def answer() -> None:
        for line in sys.stdin:
            if line.strip() == "cpu":
                print(usage_line(), flush=True)
            elif line.strip() == "late":
                print(json.dumps({"late_ms": late_frames(shown)}), flush=True)
            elif line.strip() == "gc":
                print(json.dumps(collection_times()), flush=True)
        app.stop()

    threading.Thread(target=answer, daemon=True).start()
    run_realtime(app, 60, start=False, started=freeze_start_up)  # as the console's own process
    os._exit(0)


def late_frames(shown) -> list[float]:
    """For each frame that changed by itself (drawn from the same state as the one before), how
    long after its change it reached the panel, in ms: the change found on the renderer by
    bisection between the two frames' times."""
    from console.view.moment import first_change
    from console.view.render import render

    late = []
    for (before, old, game, ui), (at, frame, game2, ui2) in zip(shown, shown[1:]):
        if game is game2 and ui is ui2 and ui.screen != "idle":
            edge = first_change(lambda t: render(game, ui, t), before, old, at)
            late.append((at - edge) * 1000)
    return late


def put_on_screen(app, screen: str, now: float) -> None:
    from bench.games import whole_game
    from console.commands.measure_games import busy_game, reveal_game
    from console.game import rules
    from console.game.board import Cell
    from console.game.record import action_from_json, fold_record
    from console.view.screens import CHEER_S
    from console.view.timeline import stored_timeline
    from console.game.seating import PANEL, Seating
    from console.view.ui import Ui

    if screen == "guessing":
        state, _ = busy_game()
        app.put_on(state, Ui(screen="play", cursor=Cell(3, 20)), now)
    elif screen == "secret choice":  # the giver's card on the panel, the room looking away
        state = rules.apply(None, rules.NewGame(players=5, seed=11, first_giver=0, variant="cards"))
        app.put_on(state, Ui(screen="secret", seating=Seating(secret=PANEL), card_choice=1), now)
    elif screen == "clue":  # the target chosen, the giver thinking of a word: a round's other long wait
        state = rules.apply(None, rules.NewGame(players=5, seed=11, first_giver=0, variant="cards"))
        state = rules.apply(state, rules.ChooseTarget(state.card_cells[0]))
        app.put_on(state, Ui(screen="play", seating=Seating(secret=PANEL)), now)
    elif screen == "game over":  # once the room has cheered, until the idle board comes back
        state = fold_record(enumerate(map(action_from_json, whole_game(4)), 1))
        app.put_on(state, Ui(screen="game_over", since=now - CHEER_S), now)
    elif screen == "scoreboard":
        state, _ = reveal_game()
        app.put_on(state, Ui(screen="reveal", since=now - 60.0), now)
    elif screen == "brightness":
        app.ui = replace(app.ui, screen="brightness")
    elif screen == "attract":  # the idle board after 45 s untouched: the last game's reveals
        app.pictures.attract = stored_timeline(whole_game(4)).reveals()
        app.pictures.attract_due = False
        app.ui = replace(app.ui, since=now - 45.0)
    elif screen != "idle":
        raise ValueError(f"no bench screen {screen!r}")


class Child:
    """A child process running `module` (this one by default) with `args`, spoken to line by line."""

    def __init__(self, *args: str, preexec=None, module: str = "bench.processes",
                 cpus: set[int] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", module, *args],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        preexec_fn=preexec, cwd=CHECKOUT)
        if cpus:  # kept to them from its start: Python is still starting, no thread of its own yet
            os.sched_setaffinity(self.process.pid, cpus)
        self.first = self.read()

    def read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a lab child ({self.process.args[3:]}) stopped")
        return json.loads(line)

    def ask(self, what: str) -> dict:
        self.process.stdin.write(what + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def usable_cpus() -> list[int] | None:
    """The CPUs this process may run on (None where the system does not say: not Linux)."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


def usage_line() -> str:
    """In a child: its clock, its CPU so far and how often its threads went to sleep (voluntary
    context switches: each one a wake-up later), as one JSON line."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return json.dumps({"at": time.monotonic(), "cpu": usage.ru_utime + usage.ru_stime, "sleeps": usage.ru_nvcsw})


def cpu_share(child: Child, seconds: float, settle_s: float = SETTLE_S) -> tuple[float, float]:
    """The child's share of a core over `seconds` once `settle_s` have passed, and its wake-ups
    a second (the bench's two questions to it wake its answering thread twice)."""
    time.sleep(settle_s)
    a = child.ask("cpu")
    time.sleep(seconds)
    b = child.ask("cpu")
    elapsed = b["at"] - a["at"]
    return (b["cpu"] - a["cpu"]) / elapsed, (b["sleeps"] - a["sleeps"]) / elapsed


def collection_times() -> dict:
    """In a child: a full garbage collection's time as the console runs, what its start made
    frozen (`loop.freeze_start_up`), and the same with that thawed (the anchor), then frozen again."""
    import gc

    def collection_ms() -> float:
        begin = time.perf_counter()
        gc.collect()
        return round((time.perf_counter() - begin) * 1000, 2)

    frozen, kept = collection_ms(), gc.get_freeze_count()
    gc.unfreeze()
    thawed = collection_ms()
    gc.freeze()
    return {"frozen_ms": frozen, "thawed_ms": thawed, "objects_frozen": kept}


# --- the still screens -----------------------------------------------------------------------------


def bare_wait_loop(seconds: float) -> None:
    """In the child: the anchor, a loop that only waits 1/60 s at a time (what any 60 Hz loop costs)."""
    print(json.dumps({}), flush=True)
    stop = threading.Event()

    def answer():
        for line in sys.stdin:
            print(usage_line(), flush=True)
        stop.set()

    threading.Thread(target=answer, daemon=True).start()
    while not stop.wait(1 / 60):
        pass
    os._exit(0)


def still_figures(seconds: float = 10.0, repeats: int = 2) -> dict:
    """% of a core for each still screen (a range over `repeats`), the web on with one phone
    (another process) for guessing and the idle board, and the bare 60 Hz loop beside them.
    Each is measured over `seconds`, the idle board over a whole period of its glint
    (`still_window_s`). The window opens once the screen has gone round its pictures twice
    (`still_settle_s`): what a screen costs as it stays, not while its first rounds fill the
    output stage's and the driver's caches (the first glint meets the limiter's level still
    settling, the second one new pictures at the settled level)."""
    runs = [("bare 60 Hz wait loop (anchor)", "bare", ("bare",), False)] + [
        (screen, screen, ("console", screen), False) for screen in STILL_SCREENS
    ] + [(f"{screen}, web on, a phone connected", screen, ("console", screen, "--web"), True)
         for screen in ("guessing", "idle")]
    out = {}
    for name, screen, args, web in runs:
        shares, wakes, settle_s, window_s = [], [], still_settle_s(screen), still_window_s(screen, seconds)
        for _ in range(repeats):
            child = Child(*args)
            phone = Phones(child.first, 1, watch=True) if web else None
            try:
                share, woken = cpu_share(child, window_s, settle_s)
                shares.append(round(100 * share, 3))
                wakes.append(round(woken, 1))
            finally:
                if phone is not None:
                    phone.close()
                child.close()
        out[name] = {"percent": [min(shares), max(shares)], "wakes_per_s": [min(wakes), max(wakes)],
                     "seconds": window_s, "repeats": repeats,
                     "settled_s": settle_s}
    return out


def still_window_s(screen: str, seconds: float) -> float:
    """How long a still screen is measured: `seconds`, and for a screen that comes round in a
    longer period, whole periods of it, at least one: the idle board's glint (boards.IDLE_GLINT_S)
    and the attract loop's reveals (timeline.REVEAL_S). Another window would read more of the
    glint's crossing or of its stillness, or of a reveal's flashing or of its scoreboard, than
    the screen shows."""
    from console.view.boards import IDLE_GLINT_S
    from console.view.timeline import REVEAL_S

    period = {"idle": IDLE_GLINT_S, "attract": REVEAL_S}.get(screen)
    return seconds if period is None else max(1, math.ceil(seconds / period)) * period


def still_settle_s(screen: str) -> float:
    """How long a still screen runs before it is measured: two of its rounds (the idle board's
    glint comes every IDLE_GLINT_S; the guessing screen's beat and the others' are a second or
    hold still; each of the attract loop's reveals draws pictures of its own, which waiting
    longer would not have drawn), and a second more."""
    from console.view.boards import IDLE_GLINT_S
    from console.view.render import PAWN_S

    return SETTLE_S + 2 * (IDLE_GLINT_S if screen == "idle" else PAWN_S)


# --- phones in another process -------------------------------------------------------------------


class Phones(Child):
    """The phones' process: N websocket clients of the console `server`, each from its own
    loopback address; with `beside`, N more of that server (the anchor), tapped in turn with them
    (`bench.phones`, the module it runs)."""

    MODULE = "bench.phones"

    def __init__(self, server: dict, n: int, *, taps: int = 0, every_s: float = 0.05,
                 others_tap: bool = False, watch: bool = False, beside: dict | None = None,
                 cpus: set[int] | None = None) -> None:
        seats = [server.get("guesser")] + [s for s in range(10) if s not in (server.get("guesser"), server.get("giver"))]
        servers = [{"url": server["url"], "code": server["code"], "anchor": False}]
        if beside is not None:
            servers.append({"url": beside["url"], "code": "", "anchor": True})
        super().__init__("phones", json.dumps({
            "servers": servers, "n": n, "taps": taps, "every_s": every_s, "watch": watch,
            "others_tap": others_tap, "seats": [s for s in seats if s is not None]}), module=self.MODULE,
            cpus=cpus)


if __name__ == "__main__":
    role, rest = sys.argv[1], sys.argv[2:]
    if role == "console":
        serve_console(rest[0], "--web" in rest, rest[rest.index("--notify") + 1] if "--notify" in rest else None)
    elif role == "bare":
        bare_wait_loop(0)
