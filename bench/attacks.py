"""The phones' server under attack: each attack of `attacker`, from a process of its own, against
the console in real time (headless driver, its web companion with `sim --web`'s controls), and
what the party gets meanwhile: a seated phone's taps (the round trip from a tap to its own view
showing it), the panel loop's worst gap between two frames, a new phone joining with the right code, and the
joystick on its own seat's turn (40 presses, 50 ms apart: from the queue to the loop taking it,
and whether each moved the panel's cursor).

  python -m bench attacks [ATTACK ...]     (all of them by default)

The figures are this machine's, with the console, the measuring phones and the attacker sharing
its cores (a loaded 2-core machine gives ranges, not points); "none" is the same run's anchor.
The attack tests (tests/web/test_web_attacks.py) drive the same `AttackedConsole` and assert the
mechanisms; this prints the times.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import threading
import time
from typing import Any

from bench import CHECKOUT
from bench.attacker import ATTACKS
from console.commands.measure_games import percentile
from console.commands.measure_phone import WAIT_S, BenchPhone
from console.commands.wiring import attach_web, build_app
from console.config.loader import load_config
from console.game.rules import current_player
from console.play.loop import run_realtime
from console.play.ports import Chore
from console.web.limits import LIMITS, Limits
from hal.inputs.events import PRESS, InputEvent

GUESTS = ("127.0.0.1", "127.0.0.8")  # the seated phones' addresses; the attacker's are 127.0.0.2-7
NEWCOMER = "127.0.0.9"
ON_LOOPBACK = dataclasses.replace(LIMITS, local=())  # loopback addresses as separate devices


class AttackedConsole:
    """The console with two phones seated in a game (host and guesser), the loop's frames and
    the joystick's presses timed; `attack(name)` starts the attacker process."""

    def __init__(self, limits: Limits = ON_LOOPBACK) -> None:
        config = load_config(environ={}, etc_path="/nonexistent")
        config = dataclasses.replace(config, web=dataclasses.replace(config.web, enabled=True, address="127.0.0.1",
                                                                     port=0))
        self.app = build_app(config, "sim-headless", lambda events: [], rng=random.Random(7))
        self.web = attach_web(config, self.app, controls=True, limits=limits)
        self.frames: list[float] = []  # when each tick began
        self.presses: list[tuple[float, float | None]] = []  # joystick: (put, taken)
        self._time_the_loop()
        self._loop = threading.Thread(target=run_realtime, args=(self.app, 60), daemon=True)
        self._loop.start()
        self.attacker: subprocess.Popen | None = None
        self.said: list[dict] = []
        self.phones: list[BenchPhone] = []
        self.game_id = self._stored_game()
        code = self.code()
        self.host, self.guesser = (BenchPhone(self.web.url, code, seat, source=source)
                                   for seat, source in enumerate(GUESTS))
        self.phones = [self.host, self.guesser]
        self.host.send("new_game", players=3, variant="free", first_giver=0)
        self.host.wait_for(lambda m: m["you"]["free"] is True)
        self.host.send("choose", cell="H15")
        self.host.send("clue")
        self.guesser.wait_for(lambda m: m["game"]["turn"] == 1)

    def code(self) -> str:
        deadline = time.monotonic() + WAIT_S
        while not self.web.hub.snapshot.ui.room_code and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.web.hub.snapshot.ui.room_code

    def _time_the_loop(self) -> None:
        tick, drain = self.app.tick, self.app.events.drain

        def timed_tick(now: float) -> float:
            self.frames.append(time.monotonic())
            return tick(now)

        def noting_drain() -> list:
            events = drain()
            taken = time.monotonic()
            for event in events:
                if isinstance(event, InputEvent) and event.button in ("up", "down"):
                    self.presses.append((event.time, taken))
            return events

        self.app.tick, self.app.events.drain = timed_tick, noting_drain

    def _stored_game(self) -> str:
        """A game in the store for the replay pages (started and abandoned at once)."""
        from console.game.record import action_to_json
        from console.game.rules import NewGame

        ids: list[str] = []
        done = threading.Event()

        def store_one(store: Any) -> None:
            ids.append(store.start_game(action_to_json(NewGame(players=3))))
            store.abandon()
            done.set()

        self.app.events.put(Chore(store_one))
        done.wait(WAIT_S)
        return ids[0]

    # --- the attack ----------------------------------------------------------------------------

    def attack(self, name: str, nice: int = 0) -> None:
        """Start the attacker; `nice` 19 for figures: it stands for a machine of its own, so it
        should not take the console's share of this one's cores."""
        self.attacker = subprocess.Popen(
            [sys.executable, "-m", "bench.attacker", name, self.web.url, self.code(), self.game_id],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, preexec_fn=lambda: os.nice(nice),
            cwd=CHECKOUT)
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        assert self.attacker is not None and self.attacker.stdout is not None
        for line in self.attacker.stdout:
            self.said.append(json.loads(line))

    def attacking(self, until=lambda said: said["held"] > 0 or said["sent"] > 0, timeout_s: float = 3 * WAIT_S) -> dict:
        """The attacker's latest report once `until` holds for it."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.said and until(self.said[-1]):
                return self.said[-1]
            if self.attacker is not None and self.attacker.poll() is not None:
                raise RuntimeError(f"the attacker stopped (exit {self.attacker.returncode})")
            time.sleep(0.05)
        raise TimeoutError(f"the attacker never got there: {self.said[-1:] or 'nothing said'}")

    # --- what the party gets -------------------------------------------------------------------

    def taps(self, count: int = 50, every_s: float = 0.04) -> list[float]:
        """Milliseconds from each of the guesser's taps to its own view showing it."""
        latencies = []
        for i in range(count):
            cell = f"{'ABCD'[i % 4]}{i % 30 + 1}"
            sent = self.guesser.send("cursor", cell=cell)
            at = self.guesser.wait_for(lambda m, cell=cell: m["t"] == "view" and m["game"]["cursor"] == cell, sent)
            latencies.append((at - sent) * 1000)
            time.sleep(max(0.0, sent + every_s - time.perf_counter()))
        return latencies

    def joystick(self, presses: int = 40, every_s: float = 0.05) -> int:
        """Presses down and up in turn, each when the last was taken, on the joystick's own turn
        (it does not act for a phone's seat: the guesser's pawn is placed first, so after the
        taps); how many moved the panel's cursor."""
        if current_player(self.web.hub.snapshot.game) == 1:
            sent = self.guesser.send("place", cell="H20")
            self.guesser.send("confirm")
            self.guesser.wait_for(lambda m: m["t"] == "view" and m["game"]["turn"] == 2, sent)
        moved = 0
        for i in range(presses):
            before, put = self.app.ui.cursor, time.monotonic()
            self.app.events.put(InputEvent("down" if i % 2 == 0 else "up", PRESS, put))
            while time.monotonic() < put + WAIT_S and (not self.presses or self.presses[-1][0] != put
                                                       or self.app.ui.cursor == before):
                time.sleep(0.002)
            moved += self.app.ui.cursor != before
            time.sleep(max(0.0, put + every_s - time.monotonic()))
        return moved

    def newcomer(self, source: str = NEWCOMER) -> float:
        """Seconds for a new phone to connect and be let in with the right code."""
        started = time.perf_counter()
        phone = BenchPhone(self.web.url, self.code(), None, source=source)
        self.phones.append(phone)
        return time.perf_counter() - started

    def figures(self, since: float) -> dict:
        """The loop's worst gap and the joystick's presses since `since` (time.monotonic)."""
        frames = [t for t in self.frames if t >= since]
        presses = [(put, taken) for put, taken in self.presses if put >= since]
        waits = [(taken - put) * 1000 for put, taken in presses]
        return {"frame_gap_max_ms": round(max(b - a for a, b in zip(frames, frames[1:])) * 1000, 1),
                "joystick_presses": len(presses), "joystick_max_ms": round(max(waits, default=0.0), 1)}

    def close(self) -> None:
        if self.attacker is not None:
            self.attacker.terminate()
            self.attacker.wait(WAIT_S)
        for phone in self.phones:
            phone.close()
        self.app.stop()
        self._loop.join(WAIT_S)
        for source in self.app.sources:
            source.close()
        self.app.close()

    def __enter__(self) -> AttackedConsole:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def measure(attack: str | None, taps: int = 100) -> dict:
    """The party's figures under `attack` (None: no attack, the anchor)."""
    with AttackedConsole() as console:
        if attack is not None:
            console.attack(attack, nice=19)
            console.attacking()
            time.sleep(0.5)  # at full strength
        since, cpu = time.monotonic(), time.process_time()
        latencies = console.taps(taps)
        join_s = console.newcomer()
        moved = console.joystick()
        figures = console.figures(since)
        figures["joystick_moved"] = moved
        figures["console_cpu_pct"] = round(100 * (time.process_time() - cpu) / (time.monotonic() - since))
        said = console.said[-1] if console.said else {}
    return {"attack": attack or "none", "tap_p50_ms": round(percentile(latencies, 50), 1),
            "tap_p99_ms": round(percentile(latencies, 99), 1), "taps": len(latencies), **figures,
            "newcomer_s": round(join_s, 3), "attacker": said}


def report(attacks: list[str]) -> None:
    """Each attack's figures (all of them when none is named), beside the run without one."""
    for attack in [None, *(attacks or ATTACKS)]:
        r = measure(attack)
        a = r["attacker"]
        print(f"{r['attack']:>12}: taps p50 {r['tap_p50_ms']:6.1f} ms, p99 {r['tap_p99_ms']:6.1f} ms ({r['taps']}); "
              f"frame gap max {r['frame_gap_max_ms']:6.1f} ms; joystick max {r['joystick_max_ms']:6.1f} ms "
              f"({r['joystick_moved']} of {r['joystick_presses']} presses moved the cursor); new phone in {r['newcomer_s'] * 1000:6.0f} ms; "
              f"console's CPU {r['console_cpu_pct']:3d} %"
              + (f"; attacker holds {a['held']}, opened {a['opened']}, refused {a['refused']}, sent {a['sent']}"
                 if a else ""), flush=True)
